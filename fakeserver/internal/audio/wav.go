package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// The kernels marked //go:norace here touch only their own buffers: see doc.go.

// Errors of the WAV reader. Each returned error wraps one of them (or an error of the underlying
// reader) and adds detail.
var (
	// ErrNotWAV means the input does not start with a RIFF/WAVE header.
	ErrNotWAV = errors.New("audio: not a WAV file")
	// ErrUnsupportedFormat means a well-formed WAV file whose encoding, channel count or sample
	// rate this package does not handle.
	ErrUnsupportedFormat = errors.New("audio: unsupported WAV format")
	// ErrMalformedWAV means a WAV file whose structure is broken: a missing or short fmt chunk,
	// audio data before the fmt chunk, inconsistent header fields, or no data chunk.
	ErrMalformedWAV = errors.New("audio: malformed WAV file")
)

// WAV format tags.
const (
	wavePCM        = 0x0001
	waveFloat      = 0x0003
	waveExtensible = 0xFFFE
)

// Limits on chunks the reader loads into memory.
const (
	maxFmtChunk  = 1 << 16 // longer fmt chunks are malformed
	maxListChunk = 1 << 20 // longer LIST chunks are skipped unread
	maxTitle     = 1 << 12 // bytes of a title kept
)

// ksGUIDTail is the tail shared by the KSDATAFORMAT_SUBTYPE_PCM and _IEEE_FLOAT GUIDs.
var ksGUIDTail = [14]byte{0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71}

// WAVFormat describes the audio of a WAV file.
type WAVFormat struct {
	// Channels is the number of interleaved channels (1 to 8).
	Channels int
	// SampleRate is in frames per second (MinSampleRate to MaxSampleRate).
	SampleRate int
	// BitsPerSample is the size of a stored sample: 8, 16, 24, 32 or 64.
	BitsPerSample int
	// ValidBits is the number of significant bits (WAVE_FORMAT_EXTENSIBLE), else BitsPerSample.
	ValidBits int
	// Float is set for IEEE float samples.
	Float bool
	// ChannelMask is the WAVE_FORMAT_EXTENSIBLE speaker mask, or 0.
	ChannelMask uint32
	// CodecName is ffprobe's name for the encoding: pcm_u8, pcm_s16le, pcm_s24le, pcm_s32le,
	// pcm_f32le or pcm_f64le.
	CodecName string
}

// frameSize is the number of bytes of one frame.
func (f WAVFormat) frameSize() int { return f.Channels * f.BitsPerSample / 8 }

// WAVReader decodes a WAV stream into float64 samples, reading its input in blocks as it goes.
type WAVReader struct {
	r         countingReader
	format    WAVFormat
	title     string
	info      map[string]string // LIST/INFO entries by id
	id3       []byte            // the body of an "id3 " chunk
	remaining int64             // bytes of audio data left, or -1 for "until EOF"
	pad       bool              // the data chunk has an odd size
	done      bool
	raw       []byte
	err       error // sticky error after the end
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// NewWAVReader reads a WAV header from r up to the start of the audio data. It accepts RIFF (and
// RF64) WAVE files with PCM integer samples of 8 (unsigned), 16, 24 or 32 bits, IEEE float samples
// of 32 or 64 bits, or WAVE_FORMAT_EXTENSIBLE with those subformats; 1 to 8 channels; 7350 to
// 384000 Hz. Unknown chunks are skipped. A data chunk size of 0 or 0xFFFFFFFF means the audio
// runs to the end of the input.
func NewWAVReader(r io.Reader) (*WAVReader, error) {
	w := &WAVReader{r: countingReader{r: r}}
	var hdr [12]byte
	if _, err := io.ReadFull(&w.r, hdr[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%w: input shorter than a RIFF header (%d bytes)", ErrNotWAV, w.r.n)
		}
		return nil, err
	}
	riff := string(hdr[0:4])
	if (riff != "RIFF" && riff != "RF64") || string(hdr[8:12]) != "WAVE" {
		return nil, fmt.Errorf("%w: starts with %q", ErrNotWAV, hdr[:])
	}
	var haveFmt bool
	var ds64Data int64 = -1
	for {
		id, size, err := w.chunkHeader()
		if err != nil {
			return nil, w.headerErr(err, haveFmt)
		}
		switch id {
		case "fmt ":
			if haveFmt {
				return nil, fmt.Errorf("%w: a second fmt chunk", ErrMalformedWAV)
			}
			if err := w.readFmt(size); err != nil {
				return nil, err
			}
			haveFmt = true
		case "ds64":
			// RF64: the real data size is in the ds64 chunk.
			body, err := w.readBody(size, 64)
			if err != nil {
				return nil, w.headerErr(err, haveFmt)
			}
			if len(body) >= 16 {
				if v := binary.LittleEndian.Uint64(body[8:16]); v < 1<<62 {
					ds64Data = int64(v)
				}
			}
		case "data":
			if !haveFmt {
				return nil, fmt.Errorf("%w: data chunk before the fmt chunk", ErrMalformedWAV)
			}
			switch {
			case size == 0xFFFFFFFF && ds64Data >= 0:
				w.remaining = ds64Data
			case size == 0 || size == 0xFFFFFFFF:
				w.remaining = -1
			default:
				w.remaining = int64(size)
			}
			w.pad = w.remaining > 0 && w.remaining%2 == 1
			return w, nil
		case "LIST":
			if err := w.readList(size); err != nil {
				return nil, w.headerErr(err, haveFmt)
			}
		case "id3 ", "ID3 ":
			if err := w.readID3(size); err != nil {
				return nil, w.headerErr(err, haveFmt)
			}
		default:
			if err := w.skip(size); err != nil {
				return nil, w.headerErr(err, haveFmt)
			}
		}
	}
}

// headerErr explains an error met before the data chunk: the end of the input means a missing
// chunk (or a chunk size running past the end).
func (w *WAVReader) headerErr(err error, haveFmt bool) error {
	switch {
	case !errors.Is(err, io.EOF):
		return err
	case !haveFmt:
		return fmt.Errorf("%w: no fmt chunk in %d bytes", ErrMalformedWAV, w.r.n)
	}
	return fmt.Errorf("%w: no data chunk in %d bytes", ErrMalformedWAV, w.r.n)
}

// Format returns the audio's format.
func (w *WAVReader) Format() WAVFormat { return w.format }

// chunkHeader reads a chunk's id and size; io.EOF means the input ended cleanly or mid-header.
func (w *WAVReader) chunkHeader() (string, uint32, error) {
	var h [8]byte
	if _, err := io.ReadFull(&w.r, h[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = io.EOF
		}
		return "", 0, err
	}
	return string(h[:4]), binary.LittleEndian.Uint32(h[4:]), nil
}

// skip discards a chunk body of size bytes and its pad byte.
func (w *WAVReader) skip(size uint32) error {
	n := int64(size) + int64(size&1)
	got, err := io.CopyN(io.Discard, &w.r, n)
	if got < n && (err == nil || errors.Is(err, io.EOF)) {
		return io.EOF
	}
	return err
}

// readBody reads a chunk body of size bytes (keeping at most limit of them) and its pad byte.
func (w *WAVReader) readBody(size uint32, limit int) ([]byte, error) {
	keep := int(min(int64(size), int64(limit)))
	body := make([]byte, keep)
	if _, err := io.ReadFull(&w.r, body); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, io.EOF
		}
		return nil, err
	}
	rest := int64(size) - int64(keep) + int64(size&1)
	if rest > 0 {
		if got, err := io.CopyN(io.Discard, &w.r, rest); got < rest {
			if err == nil || errors.Is(err, io.EOF) {
				// A missing pad byte at the very end is harmless.
				if got == rest-1 && size&1 == 1 && int64(keep) == int64(size) {
					return body, nil
				}
				return nil, io.EOF
			}
			return nil, err
		}
	}
	return body, nil
}

func (w *WAVReader) readFmt(size uint32) error {
	if size < 16 {
		return fmt.Errorf("%w: fmt chunk of %d bytes (want at least 16)", ErrMalformedWAV, size)
	}
	if size > maxFmtChunk {
		return fmt.Errorf("%w: fmt chunk of %d bytes", ErrMalformedWAV, size)
	}
	b, err := w.readBody(size, 40)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("%w: truncated fmt chunk", ErrMalformedWAV)
		}
		return err
	}
	tag := binary.LittleEndian.Uint16(b[0:])
	channels := int(binary.LittleEndian.Uint16(b[2:]))
	rate := binary.LittleEndian.Uint32(b[4:])
	blockAlign := int(binary.LittleEndian.Uint16(b[12:]))
	bits := int(binary.LittleEndian.Uint16(b[14:]))
	f := WAVFormat{Channels: channels, BitsPerSample: bits, ValidBits: bits}
	if tag == waveExtensible {
		if len(b) < 40 || binary.LittleEndian.Uint16(b[16:]) < 22 {
			return fmt.Errorf("%w: WAVE_FORMAT_EXTENSIBLE fmt chunk of %d bytes", ErrMalformedWAV, size)
		}
		f.ValidBits = int(binary.LittleEndian.Uint16(b[18:]))
		f.ChannelMask = binary.LittleEndian.Uint32(b[20:])
		if !bytes.Equal(b[26:40], ksGUIDTail[:]) {
			return fmt.Errorf("%w: WAVE_FORMAT_EXTENSIBLE subformat %x", ErrUnsupportedFormat, b[24:40])
		}
		tag = binary.LittleEndian.Uint16(b[24:])
		if f.ValidBits == 0 {
			f.ValidBits = bits
		}
		if f.ValidBits > bits {
			return fmt.Errorf("%w: %d valid bits in %d-bit samples", ErrMalformedWAV, f.ValidBits, bits)
		}
	}
	switch {
	case tag == wavePCM && bits == 8:
		f.CodecName = "pcm_u8"
	case tag == wavePCM && (bits == 16 || bits == 24 || bits == 32):
		f.CodecName = fmt.Sprintf("pcm_s%dle", bits)
	case tag == waveFloat && (bits == 32 || bits == 64):
		f.Float = true
		f.CodecName = fmt.Sprintf("pcm_f%dle", bits)
	case tag == wavePCM || tag == waveFloat:
		kind := "integer"
		if tag == waveFloat {
			kind = "float"
		}
		return fmt.Errorf("%w: %d-bit %s samples", ErrUnsupportedFormat, bits, kind)
	default:
		return fmt.Errorf("%w: format tag 0x%04X (%s)", ErrUnsupportedFormat, tag, formatTagName(tag))
	}
	if channels < 1 || channels > MaxChannels {
		return fmt.Errorf("%w: %d channels (want 1 to %d)", ErrUnsupportedFormat, channels, MaxChannels)
	}
	if rate < MinSampleRate || rate > MaxSampleRate {
		return fmt.Errorf("%w: sample rate %d Hz (want %d to %d)", ErrUnsupportedFormat, rate, MinSampleRate, MaxSampleRate)
	}
	f.SampleRate = int(rate)
	if blockAlign != f.frameSize() {
		return fmt.Errorf("%w: block align %d for %d channels of %d bits", ErrMalformedWAV, blockAlign, channels, bits)
	}
	w.format = f
	return nil
}

func formatTagName(tag uint16) string {
	switch tag {
	case 0x0002:
		return "Microsoft ADPCM"
	case 0x0006:
		return "A-law"
	case 0x0007:
		return "µ-law"
	case 0x0011:
		return "IMA ADPCM"
	case 0x0050:
		return "MPEG"
	case 0x0055:
		return "MPEG layer 3"
	}
	return "unknown"
}

// readList reads a LIST chunk, keeping an INFO INAM title; other lists are skipped.
func (w *WAVReader) readList(size uint32) error {
	if size > maxListChunk {
		return w.skip(size)
	}
	body, err := w.readBody(size, int(size))
	if err != nil {
		return err
	}
	if t, ok := infoTitle(body); ok {
		w.title = t
	}
	if len(body) >= 4 && string(body[:4]) == "INFO" {
		w.info = infoEntries(body[4:])
	}
	return nil
}

// readID3 keeps the body of an ID3v2 chunk; a chunk larger than maxTagBytes is skipped.
func (w *WAVReader) readID3(size uint32) error {
	if size > maxTagBytes {
		return w.skip(size)
	}
	body, err := w.readBody(size, int(size))
	if err != nil {
		return err
	}
	w.id3 = body
	return nil
}

// infoEntries returns the entries of a LIST/INFO body (after "INFO"), each trimmed at its NUL.
func infoEntries(b []byte) map[string]string {
	out := map[string]string{}
	for len(b) >= 8 {
		id := string(b[:4])
		n := int64(binary.LittleEndian.Uint32(b[4:8]))
		b = b[8:]
		n = min(n, int64(len(b)))
		v := b[:n]
		if i := bytes.IndexByte(v, 0); i >= 0 {
			v = v[:i]
		}
		v = v[:min(len(v), maxTitle)]
		out[id] = strings.ToValidUTF8(strings.TrimSpace(string(v)), "\uFFFD")
		b = b[min(n+n&1, int64(len(b))):]
	}
	return out
}

// infoTitle finds the INAM entry of a LIST chunk body of type INFO.
func infoTitle(b []byte) (string, bool) {
	if len(b) < 4 || string(b[:4]) != "INFO" {
		return "", false
	}
	b = b[4:]
	for len(b) >= 8 {
		id := string(b[:4])
		n := int64(binary.LittleEndian.Uint32(b[4:8]))
		b = b[8:]
		if n > int64(len(b)) {
			n = int64(len(b))
		}
		if id == "INAM" {
			v := b[:n]
			if i := bytes.IndexByte(v, 0); i >= 0 {
				v = v[:i]
			}
			if len(v) > maxTitle {
				v = v[:maxTitle]
			}
			return strings.ToValidUTF8(strings.TrimSpace(string(v)), "\uFFFD"), true
		}
		b = b[min(n+n&1, int64(len(b))):]
	}
	return "", false
}

// Read decodes whole frames into dst as interleaved samples and returns the number of samples
// written (a multiple of the channel count). It returns io.EOF after the audio ends: at the end of
// the data chunk, or at the end of the input for a truncated file, whose trailing partial frame is
// dropped. After the data chunk the rest of the input is read, for a trailing INFO title.
func (w *WAVReader) Read(dst []float64) (int, error) {
	if w.done {
		return 0, w.errOrEOF()
	}
	ch := w.format.Channels
	bps := w.format.BitsPerSample / 8
	fs := w.format.frameSize()
	frames := len(dst) / ch
	if frames == 0 {
		return 0, nil
	}
	want := int64(frames * fs)
	if w.remaining >= 0 {
		want = min(want, w.remaining/int64(fs)*int64(fs))
	}
	if want == 0 {
		w.finish()
		return 0, w.errOrEOF()
	}
	if cap(w.raw) < int(want) {
		w.raw = make([]byte, want)
	}
	raw := w.raw[:want]
	n, err := io.ReadFull(&w.r, raw)
	if w.remaining >= 0 {
		w.remaining -= int64(n)
	}
	got := n / fs
	decode(dst[:got*ch], raw[:got*fs], bps, w.format.Float)
	switch {
	case err == nil:
		if w.remaining >= 0 && w.remaining < int64(fs) {
			w.finish()
		}
		return got * ch, nil
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		w.done = true // truncated: measure what is there
	default:
		w.done = true
		w.err = err
	}
	if got > 0 {
		return got * ch, nil
	}
	return 0, w.errOrEOF()
}

func (w *WAVReader) errOrEOF() error {
	if w.err != nil {
		return w.err
	}
	return io.EOF
}

// finish skips the data chunk's leftovers and reads the chunks after it, leniently, to the end of
// the input.
func (w *WAVReader) finish() {
	w.done = true
	if w.remaining < 0 {
		return
	}
	rest := w.remaining
	if w.pad {
		rest++
	}
	if got, err := io.CopyN(io.Discard, &w.r, rest); got < rest {
		if err != nil && !errors.Is(err, io.EOF) {
			w.err = err
		}
		return
	}
	for {
		id, size, err := w.chunkHeader()
		if err != nil {
			break
		}
		switch id {
		case "LIST":
			err = w.readList(size)
		case "id3 ", "ID3 ":
			err = w.readID3(size)
		default:
			err = w.skip(size)
		}
		if err != nil {
			break
		}
	}
	if _, err := io.Copy(io.Discard, &w.r); err != nil {
		w.err = err
	}
}

// decode converts little-endian samples of bps bytes to float64 full-scale units.
//
//go:norace
//go:nocheckptr
func decode(dst []float64, raw []byte, bps int, float bool) {
	switch {
	case float && bps == 4:
		for i := range dst {
			dst[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])))
		}
	case float:
		for i := range dst {
			dst[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
		}
	case bps == 1:
		for i := range dst {
			dst[i] = (float64(raw[i]) - 128) / 128
		}
	case bps == 2:
		for i := range dst {
			dst[i] = float64(int16(binary.LittleEndian.Uint16(raw[2*i:]))) / (1 << 15)
		}
	case bps == 3:
		for i := range dst {
			b := raw[3*i : 3*i+3]
			v := int32(uint32(b[0])<<8|uint32(b[1])<<16|uint32(b[2])<<24) >> 8
			dst[i] = float64(v) / (1 << 23)
		}
	case bps == 4:
		for i := range dst {
			dst[i] = float64(int32(binary.LittleEndian.Uint32(raw[4*i:]))) / (1 << 31)
		}
	}
}
