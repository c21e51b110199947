package aacdec

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// maxADTSFrame is the largest frame an ADTS header can state (13 bits of length).
const maxADTSFrame = 1<<13 - 1

// ADTSReader splits an ADTS stream into frames. A stretch of bytes that is not a frame (sync
// lost midway, a frame cut by a later one) is skipped up to the next header that agrees with the
// stream's first and is followed by another header or the end, and counted in Skipped.
type ADTSReader struct {
	r       *bufio.Reader
	first   *ADTSHeader
	frame   [maxADTSFrame]byte
	skipped int64
}

// NewADTSReader returns a reader of the ADTS frames of r.
func NewADTSReader(r io.Reader) *ADTSReader {
	return &ADTSReader{r: bufio.NewReaderSize(r, 2*maxADTSFrame+ADTSHeaderSize)}
}

// Skipped is the number of bytes skipped so far between frames.
func (a *ADTSReader) Skipped() int64 { return a.skipped }

// Next returns the next frame's header and raw data block, valid until the next call. It
// returns io.EOF at the end of the stream, an error wrapping ErrMalformed when the stream holds
// no frame at all, ErrUnsupported for a stream the decoder does not decode, or the reader's
// error.
func (a *ADTSReader) Next() (ADTSHeader, []byte, error) {
	for {
		head, err := a.r.Peek(ADTSHeaderSize)
		if len(head) < ADTSHeaderSize {
			if errors.Is(err, io.EOF) || err == nil {
				a.skipped += int64(len(head))
				_, _ = a.r.Discard(len(head))
				if a.first == nil {
					return ADTSHeader{}, nil, fmt.Errorf("%w: no ADTS frame", ErrMalformed)
				}
				return ADTSHeader{}, nil, io.EOF
			}
			return ADTSHeader{}, nil, err
		}
		h, herr := ParseADTSHeader(head)
		if herr == nil && a.first != nil && !a.agrees(h) {
			herr = ErrMalformed
		}
		if herr == nil && a.first == nil && h.Blocks > 1 {
			return h, nil, fmt.Errorf("%w: ADTS frames of %d raw data blocks", ErrUnsupported, h.Blocks)
		}
		if errors.Is(herr, ErrUnsupported) && a.first == nil {
			return h, nil, herr
		}
		if herr == nil && !a.followed(h) && a.first != nil && !a.cut(h) {
			// Not followed by a header, but no frame starts inside it: bytes that are not a
			// frame follow it, and are skipped next.
			return a.read(h)
		}
		if herr == nil && a.followed(h) {
			if a.first == nil {
				a.first = &h
			}
			return a.read(h)
		}
		// Not a frame here: move on to the next byte that could start one.
		_, _ = a.r.Discard(1)
		a.skipped++
		for {
			b, err := a.r.Peek(1)
			if err != nil || b[0] == 0xff {
				break
			}
			_, _ = a.r.Discard(1)
			a.skipped++
		}
	}
}

// read consumes the frame of header h.
func (a *ADTSReader) read(h ADTSHeader) (ADTSHeader, []byte, error) {
	n, err := io.ReadFull(a.r, a.frame[:h.FrameLength])
	if err != nil {
		a.skipped += int64(n)
		return ADTSHeader{}, nil, io.EOF
	}
	return h, a.frame[h.HeaderLength:h.FrameLength], nil
}

// cut reports whether a header that agrees with the stream's, and is followed by another,
// starts inside the frame of h: then h's frame was cut short by the next one.
func (a *ADTSReader) cut(h ADTSHeader) bool {
	span, _ := a.r.Peek(h.FrameLength)
	for p := 1; p+ADTSHeaderSize <= len(span); p++ {
		if span[p] != 0xff {
			continue
		}
		g, err := ParseADTSHeader(span[p:])
		if err != nil || !a.agrees(g) {
			continue
		}
		if next, _ := a.r.Peek(p + g.FrameLength + ADTSHeaderSize); len(next) >= p+g.FrameLength {
			if len(next) < p+g.FrameLength+ADTSHeaderSize {
				return true
			}
			if f, err := ParseADTSHeader(next[p+g.FrameLength:]); err == nil && a.agrees(f) {
				return true
			}
		}
	}
	return false
}

// agrees reports whether h describes the same stream as the first frame's header.
func (a *ADTSReader) agrees(h ADTSHeader) bool {
	return h.SameStream(*a.first) && h.Blocks == a.first.Blocks
}

// followed reports whether the frame h starts ends where another valid header or the stream
// begins, so that a stray sync word inside a frame is not taken for a header.
func (a *ADTSReader) followed(h ADTSHeader) bool {
	next, _ := a.r.Peek(h.FrameLength + ADTSHeaderSize)
	switch {
	case len(next) < h.FrameLength:
		return false
	case len(next) < h.FrameLength+ADTSHeaderSize:
		return true // the stream ends with this frame, or within the next header
	}
	g, err := ParseADTSHeader(next[h.FrameLength:])
	return err == nil && g.SameStream(h)
}
