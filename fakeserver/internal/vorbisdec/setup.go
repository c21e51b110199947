package vorbisdec

import (
	"encoding/binary"
	"fmt"
)

// Info is what the identification header says of a stream.
type Info struct {
	// Channels is the number of channels, 1 to 255.
	Channels int
	// SampleRate is in Hz.
	SampleRate int
	// BitrateMaximum, BitrateNominal and BitrateMinimum are the encoder's hints in bits per
	// second; 0 (or a negative number) means none.
	BitrateMaximum, BitrateNominal, BitrateMinimum int
	// BlockSizes are the short and the long block size, powers of two from 64 to 8192.
	BlockSizes [2]int
}

// ParseIdentification reads the identification header, the first packet of a stream.
func ParseIdentification(p []byte) (Info, error) {
	if len(p) < 30 || p[0] != 1 || string(p[1:7]) != "vorbis" {
		return Info{}, fmt.Errorf("%w: not a Vorbis identification header", ErrCorrupt)
	}
	if v := binary.LittleEndian.Uint32(p[7:]); v != 0 {
		return Info{}, fmt.Errorf("%w: Vorbis version %d", ErrCorrupt, v)
	}
	in := Info{
		Channels:       int(p[11]),
		SampleRate:     int(binary.LittleEndian.Uint32(p[12:])),
		BitrateMaximum: int(int32(binary.LittleEndian.Uint32(p[16:]))),
		BitrateNominal: int(int32(binary.LittleEndian.Uint32(p[20:]))),
		BitrateMinimum: int(int32(binary.LittleEndian.Uint32(p[24:]))),
	}
	e0, e1 := p[28]&15, p[28]>>4
	in.BlockSizes = [2]int{1 << e0, 1 << e1}
	switch {
	case in.Channels == 0:
		return Info{}, fmt.Errorf("%w: no channels", ErrCorrupt)
	case in.SampleRate == 0 || in.SampleRate > 1<<30:
		return Info{}, fmt.Errorf("%w: sample rate %d", ErrCorrupt, in.SampleRate)
	case e0 < 6 || e1 > 13 || e0 > e1:
		return Info{}, fmt.Errorf("%w: block sizes %d and %d", ErrCorrupt, in.BlockSizes[0], in.BlockSizes[1])
	case p[29]&1 == 0:
		return Info{}, fmt.Errorf("%w: identification header without its framing bit", ErrCorrupt)
	}
	return in, nil
}

// Comments is what the comment header says: the encoder's vendor string and the
// "KEY=value" comments, as written.
type Comments struct {
	Vendor   string
	Comments []string
}

// ParseComments reads the comment header, the second packet of a stream. Comments declared
// beyond the packet's end are left out.
func ParseComments(p []byte) (Comments, error) {
	if len(p) < 7 || p[0] != 3 || string(p[1:7]) != "vorbis" {
		return Comments{}, fmt.Errorf("%w: not a Vorbis comment header", ErrCorrupt)
	}
	b := p[7:]
	str := func() (string, bool) {
		if len(b) < 4 {
			return "", false
		}
		n := binary.LittleEndian.Uint32(b)
		if uint64(n) > uint64(len(b)-4) {
			return "", false
		}
		s := string(b[4 : 4+n])
		b = b[4+n:]
		return s, true
	}
	vendor, ok := str()
	if !ok {
		return Comments{}, fmt.Errorf("%w: comment header cut short", ErrCorrupt)
	}
	c := Comments{Vendor: vendor}
	if len(b) < 4 {
		return c, nil
	}
	count := binary.LittleEndian.Uint32(b)
	b = b[4:]
	for range count {
		s, ok := str()
		if !ok {
			break
		}
		c.Comments = append(c.Comments, s)
	}
	return c, nil
}

// mapping is a mapping of the setup header (specification section 4.2.4).
type mapping struct {
	couplingMag, couplingAng []int
	mux                      []int // submap of each channel
	submapFloor              []int
	submapResidue            []int
}

// mode is a mode of the setup header.
type mode struct {
	long    bool
	mapping int
}

// setup is everything the setup header defines.
type setup struct {
	books    []*codebook
	floors   []floor
	residues []*residue
	mappings []mapping
	modes    []mode
	work     setupBudget
}

func readSetup(p []byte, info Info) (*setup, error) {
	if len(p) < 7 || p[0] != 5 || string(p[1:7]) != "vorbis" {
		return nil, fmt.Errorf("%w: not a Vorbis setup header", ErrCorrupt)
	}
	var b bitReader
	b.reset(p[7:])
	s := &setup{}
	nbooks := int(b.read(8)) + 1
	for range nbooks {
		c, err := readCodebook(&b, &s.work)
		if err != nil {
			return nil, err
		}
		s.books = append(s.books, c)
	}
	ntimes := int(b.read(6)) + 1
	for range ntimes {
		if b.read(16) != 0 {
			return nil, fmt.Errorf("%w: time domain transform not 0", ErrCorrupt)
		}
	}
	nfloors := int(b.read(6)) + 1
	for range nfloors {
		f, err := readFloor(&b, s.books, info.BlockSizes)
		if err != nil {
			return nil, err
		}
		s.floors = append(s.floors, f)
	}
	nres := int(b.read(6)) + 1
	for range nres {
		r, err := readResidue(&b, s.books)
		if err != nil {
			return nil, err
		}
		s.residues = append(s.residues, r)
	}
	nmaps := int(b.read(6)) + 1
	for range nmaps {
		m, err := readMapping(&b, info.Channels, len(s.floors), len(s.residues))
		if err != nil {
			return nil, err
		}
		s.mappings = append(s.mappings, m)
	}
	nmodes := int(b.read(6)) + 1
	for range nmodes {
		md := mode{long: b.flag()}
		window, transform := b.read(16), b.read(16)
		if window != 0 || transform != 0 {
			return nil, fmt.Errorf("%w: mode window or transform type not 0", ErrCorrupt)
		}
		md.mapping = int(b.read(8))
		if md.mapping >= len(s.mappings) {
			return nil, fmt.Errorf("%w: mode mapping %d", ErrCorrupt, md.mapping)
		}
		s.modes = append(s.modes, md)
	}
	if !b.flag() || b.over {
		return nil, fmt.Errorf("%w: setup header cut short or without its framing bit", ErrCorrupt)
	}
	return s, nil
}

func readMapping(b *bitReader, channels, nfloors, nres int) (mapping, error) {
	if t := b.read(16); t != 0 {
		return mapping{}, fmt.Errorf("%w: mapping type %d", ErrCorrupt, t)
	}
	var m mapping
	submaps := 1
	if b.flag() {
		submaps = int(b.read(4)) + 1
	}
	if b.flag() {
		steps := int(b.read(8)) + 1
		w := ilog(uint32(channels - 1))
		for range steps {
			mag, ang := int(b.read(w)), int(b.read(w))
			if mag == ang || mag >= channels || ang >= channels {
				return mapping{}, fmt.Errorf("%w: coupling of channels %d and %d", ErrCorrupt, mag, ang)
			}
			m.couplingMag = append(m.couplingMag, mag)
			m.couplingAng = append(m.couplingAng, ang)
		}
	}
	if b.read(2) != 0 {
		return mapping{}, fmt.Errorf("%w: mapping reserved bits set", ErrCorrupt)
	}
	m.mux = make([]int, channels)
	if submaps > 1 {
		for i := range m.mux {
			m.mux[i] = int(b.read(4))
			if m.mux[i] >= submaps {
				return mapping{}, fmt.Errorf("%w: mapping submap %d", ErrCorrupt, m.mux[i])
			}
		}
	}
	for range submaps {
		b.read(8) // unused time configuration
		f, r := int(b.read(8)), int(b.read(8))
		if f >= nfloors || r >= nres {
			return mapping{}, fmt.Errorf("%w: submap floor %d, residue %d", ErrCorrupt, f, r)
		}
		m.submapFloor = append(m.submapFloor, f)
		m.submapResidue = append(m.submapResidue, r)
	}
	if b.over {
		return mapping{}, fmt.Errorf("%w: mapping cut short", ErrCorrupt)
	}
	return m, nil
}
