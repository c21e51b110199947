package audio

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// maxTableInMemory is the longest sample table (stsz, stco, co64) kept in memory; longer ones
// (about six minutes of AAC and more) go to a temporary file, so that memory does not grow with
// the duration of the audio.
const maxTableInMemory = 64 << 10

// mp4Tables holds the sample tables of a moov box too long to keep in memory, in an unlinked
// temporary file, by track (its ordinal among moov's trak boxes) and box type. In the moov
// kept in memory such a box is a stub of its fixed fields only.
type mp4Tables struct {
	f    *os.File
	size int64
	at   map[mp4TableKey]mp4Section
}

type mp4TableKey struct {
	trak int
	typ  string
}

// mp4Section is where a spilled table's entries are, and for stsz the sum of its entries.
type mp4Section struct {
	off, n int64
	sum    uint64
}

func (t *mp4Tables) close() {
	if t != nil && t.f != nil {
		_ = t.f.Close()
	}
}

func (t *mp4Tables) section(trak int, typ string) (mp4Section, bool) {
	if t == nil {
		return mp4Section{}, false
	}
	s, ok := t.at[mp4TableKey{trak, typ}]
	return s, ok
}

// readMoov reads the body (n bytes) of a moov box from r into memory, descending into the boxes
// that lead to sample tables and moving tables longer than inMemory to a temporary file.
// Everything kept in memory is bounded by maxMoov.
func readMoov(r io.Reader, n int64, inMemory int64) ([]byte, *mp4Tables, error) {
	return readMoovSpilling(r, n, inMemory, math.MaxInt64)
}

// readMoovSpilling is readMoov copying at most spillLeft bytes of tables to the temporary file.
func readMoovSpilling(r io.Reader, n, inMemory, spillLeft int64) ([]byte, *mp4Tables, error) {
	mv := &moovReader{r: r, inMemory: inMemory, trak: -1, spillLeft: spillLeft}
	if err := mv.walk(n, 0); err != nil {
		mv.tables.close()
		return nil, nil, err
	}
	return mv.out, mv.tables, nil
}

// maxMoovBoxes bounds the boxes of a moov box: a few hundred in files seen in the wild, while
// 66 MB of empty boxes are 8.3 million, which cost 1.94 GB to list.
const maxMoovBoxes = 1 << 16

type moovReader struct {
	r         io.Reader
	inMemory  int64
	spillLeft int64 // bytes the tables may still copy to the temporary file
	boxes     int   // boxes walked
	out       []byte
	tables    *mp4Tables
	trak      int
}

// moovContainers are the boxes readMoov descends into: the path to the sample tables.
var moovContainers = map[string]bool{"trak": true, "mdia": true, "minf": true, "stbl": true, "edts": true}

func (mv *moovReader) walk(n int64, depth int) error {
	for n > 0 {
		var hdr [16]byte
		if n < 8 {
			return fmt.Errorf("%w: MP4 box header cut short in moov", ErrMalformed)
		}
		if _, err := io.ReadFull(mv.r, hdr[:8]); err != nil {
			return fmt.Errorf("%w: MP4 moov box cut short", ErrMalformed)
		}
		if mv.boxes++; mv.boxes > maxMoovBoxes {
			return fmt.Errorf("%w: MP4 moov box of more than %d boxes", ErrMalformed, maxMoovBoxes)
		}
		size, head := int64(binary.BigEndian.Uint32(hdr[:])), int64(8)
		typ := string(hdr[4:8])
		switch size {
		case 0:
			size = n
		case 1:
			if _, err := io.ReadFull(mv.r, hdr[8:16]); err != nil {
				return fmt.Errorf("%w: MP4 moov box cut short", ErrMalformed)
			}
			size, head = int64(binary.BigEndian.Uint64(hdr[8:])), 16
		}
		if size < head || size > n {
			return fmt.Errorf("%w: MP4 box %q of %d bytes in %d", ErrMalformed, typ, size, n)
		}
		body := size - head
		var err error
		switch {
		case moovContainers[typ] && depth < 6:
			if typ == "trak" && depth == 0 {
				mv.trak++
			}
			start := len(mv.out)
			mv.out = append(mv.out, 0, 0, 0, 0)
			mv.out = append(mv.out, typ...)
			if err = mv.walk(body, depth+1); err == nil {
				binary.BigEndian.PutUint32(mv.out[start:], uint32(len(mv.out)-start))
			}
		case (typ == "stsz" || typ == "stco" || typ == "co64") && body > mv.inMemory:
			err = mv.spill(typ, body)
		default:
			err = mv.keep(typ, body)
		}
		if err != nil {
			return err
		}
		n -= size
	}
	return nil
}

// keep appends a box to the moov kept in memory.
func (mv *moovReader) keep(typ string, body int64) error {
	if int64(len(mv.out))+8+body > maxMoov {
		return fmt.Errorf("%w: MP4 moov box of more than %d bytes", ErrMalformed, maxMoov)
	}
	start := len(mv.out)
	mv.out = binary.BigEndian.AppendUint32(mv.out, uint32(8+body))
	mv.out = append(mv.out, typ...)
	mv.out = append(mv.out, make([]byte, body)...)
	if _, err := io.ReadFull(mv.r, mv.out[start+8:]); err != nil {
		return fmt.Errorf("%w: MP4 moov box cut short", ErrMalformed)
	}
	return nil
}

// spill keeps a table's fixed fields in memory and copies its entries to the temporary file.
func (mv *moovReader) spill(typ string, body int64) error {
	fixed := int64(8) // version and flags, entry count
	if typ == "stsz" {
		fixed = 12 // and the sample size
	}
	if err := mv.keep(typ, fixed); err != nil {
		return err
	}
	t := mv.tables
	if t == nil {
		f, err := os.CreateTemp("", "podqa-moov-*")
		if err != nil {
			return fmt.Errorf("audio: a temporary file for MP4 sample tables: %w", err)
		}
		_ = os.Remove(f.Name()) // unlinked: gone when closed, whatever happens
		t = &mp4Tables{f: f, at: map[mp4TableKey]mp4Section{}}
		mv.tables = t
	}
	sec := mp4Section{off: t.size, n: body - fixed}
	if sec.n > mv.spillLeft {
		return fmt.Errorf("%w: MP4 sample tables and media data copied to a temporary file would pass its limit", ErrOverCeiling)
	}
	mv.spillLeft -= sec.n
	w := bufio.NewWriter(io.NewOffsetWriter(t.f, t.size))
	var entry [4]byte
	src := bufio.NewReader(io.LimitReader(mv.r, sec.n))
	for i := int64(0); i < sec.n; i += 4 {
		k, err := io.ReadFull(src, entry[:min(4, sec.n-i)])
		if err != nil {
			return fmt.Errorf("%w: MP4 moov box cut short", ErrMalformed)
		}
		if typ == "stsz" && k == 4 {
			sec.sum += uint64(binary.BigEndian.Uint32(entry[:]))
		}
		if _, err := w.Write(entry[:k]); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	t.size += sec.n
	t.at[mp4TableKey{mv.trak, typ}] = sec
	return nil
}

// mp4Entries reads a table's fixed-width entries in order, from memory or from the temporary
// file; the file is read forward only, as a track's samples are walked.
type mp4Entries struct {
	mem   []byte
	r     *bufio.Reader
	next  uint64 // the index of the entry r gives next
	n     uint64
	width uint64
	err   error
}

// newMP4Entries takes the entries of a table box (body holding its fixed fields, and its entries
// unless they were spilled): count entries of width bytes after fixed bytes.
func newMP4Entries(body []byte, fixed, width uint64, count uint64, spilled *mp4Section, f *os.File) (*mp4Entries, bool) {
	e := &mp4Entries{n: count, width: width}
	if spilled != nil {
		if uint64(spilled.n) < width*count {
			return nil, false
		}
		e.r = bufio.NewReader(io.NewSectionReader(f, spilled.off, spilled.n))
		return e, true
	}
	if uint64(len(body))-fixed < width*count {
		return nil, false
	}
	e.mem = body[fixed : fixed+width*count]
	return e, true
}

// get returns entry i, or false past the end (or when the file cannot be read, or i goes back).
func (e *mp4Entries) get(i uint64) (uint64, bool) {
	if i >= e.n || e.err != nil {
		return 0, false
	}
	if e.mem != nil {
		if e.width == 8 {
			return binary.BigEndian.Uint64(e.mem[8*i:]), true
		}
		return uint64(binary.BigEndian.Uint32(e.mem[4*i:])), true
	}
	if i < e.next {
		return 0, false
	}
	var b [8]byte
	for ; e.next <= i; e.next++ {
		if _, e.err = io.ReadFull(e.r, b[:e.width]); e.err != nil {
			if errors.Is(e.err, io.EOF) {
				e.err = io.ErrUnexpectedEOF
			}
			return 0, false
		}
	}
	if e.width == 8 {
		return binary.BigEndian.Uint64(b[:]), true
	}
	return uint64(binary.BigEndian.Uint32(b[:])), true
}
