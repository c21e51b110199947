package audio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"os"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/aacdec"
	"github.com/podqa/podqa-go/internal/mp4desc"
)

// maxMoov bounds what of a moov box is held in memory: everything but the long sample tables,
// which go to a temporary file (see readMoov).
const maxMoov = 64 << 20

// mp4FormatName is ffprobe's format_name for the ISO base media family.
const mp4FormatName = "mov,mp4,m4a,3gp,3g2,mj2"

// measureMP4 measures an MP4/M4A file. Top-level boxes are walked forward only. The first
// sound track gives channels, rate and bit rate; ilst items give tags and the cover, a Nero chpl
// box chapters. Its AAC samples are decoded and measured: as the media data streams by when the
// moov box comes first, or, when the media data comes before the moov box (which says where
// its samples are), from a temporary file the media data is copied to, so memory stays flat in
// duration either way. The decode is trimmed by the track's edit list (its media time, the
// encoder's priming, cut at the start; its duration kept), so Duration is ffprobe's. Other
// codecs wrap ErrUnsupportedCodec.
func measureMP4(in *source) (Measurement, error) {
	var (
		moov     []byte
		tables   *mp4Tables
		m        Measurement
		tr       mp4Track
		spill    *mp4Spill
		res      MeterResult
		measured bool
	)
	defer func() { spill.close(); tables.close() }()
	for {
		var hdr [8]byte
		if _, err := io.ReadFull(in.r, hdr[:]); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return Measurement{}, fmt.Errorf("%w: MP4 box header cut short", ErrMalformed)
		}
		size := int64(binary.BigEndian.Uint32(hdr[:4]))
		typ := string(hdr[4:])
		body := size - 8
		switch size {
		case 0:
			body = -1 // to the end
		case 1:
			var ext [8]byte
			if _, err := io.ReadFull(in.r, ext[:]); err != nil {
				return Measurement{}, fmt.Errorf("%w: MP4 box header cut short", ErrMalformed)
			}
			body = int64(binary.BigEndian.Uint64(ext[:])) - 16
		}
		if size != 0 && body < 0 {
			return Measurement{}, fmt.Errorf("%w: MP4 box %q of %d bytes", ErrMalformed, typ, size)
		}
		start := in.size()
		switch {
		case typ == "moov" && moov == nil:
			if body < 0 {
				return Measurement{}, fmt.Errorf("%w: MP4 moov box without a size", ErrMalformed)
			}
			var err error
			left := in.limits.spillBudget()
			if spill != nil {
				left -= spill.size
			}
			if moov, tables, err = readMoovSpilling(in.r, body, maxTableInMemory, left); err != nil {
				return Measurement{}, err
			}
			if m, tr, err = parseMoov(moov, tables); err != nil {
				return Measurement{}, err
			}
			if m.CodecName != "aac" {
				return Measurement{}, fmt.Errorf("%w: %s audio in MP4", ErrUnsupportedCodec, m.CodecName)
			}
			if _, ok := mp4Child(moov, "mvex"); ok {
				// Fragmented: the samples are described by moof boxes among the media data.
				return Measurement{}, fmt.Errorf("%w: fragmented MP4 (moof boxes) is not measured", ErrUnsupportedCodec)
			}
			if spill != nil { // the media data came first
				if res, err = tr.measure(in, &m, spill.next(tr)); err != nil {
					return Measurement{}, err
				}
				measured = true
			}
			continue
		case typ == "mdat" && moov != nil && !measured:
			var err error
			if res, err = tr.measure(in, &m, streamSamples(in, tr)); err != nil {
				return Measurement{}, err
			}
			measured = true
			// The samples may end before the box does, or run past it into the next.
			if body >= 0 {
				rest := start + body - in.size()
				if rest < 0 {
					return finishMP4(in, m, res)
				}
				body = rest
			}
		case typ == "mdat" && moov == nil && spill == nil:
			var err error
			if spill, err = spillMedia(in, start, body, in.limits.spillBudget()); err != nil {
				return Measurement{}, err
			}
			continue
		}
		if body < 0 {
			break
		}
		if n, err := io.CopyN(io.Discard, in.r, body); err != nil {
			if errors.Is(err, io.EOF) && n < body {
				break
			}
			return Measurement{}, err
		}
	}
	if moov == nil {
		return Measurement{}, fmt.Errorf("%w: MP4 file without a moov box", ErrMalformed)
	}
	if !measured {
		return Measurement{}, fmt.Errorf("%w: MP4 file without media data", ErrMalformed)
	}
	if res.Frames == 0 {
		return Measurement{}, fmt.Errorf("%w: MP4 sound track without samples", ErrMalformed)
	}
	return finishMP4(in, m, res)
}

// finishMP4 reads the input to its end and completes the measurement.
func finishMP4(in *source, m Measurement, res MeterResult) (Measurement, error) {
	if err := in.drain(); err != nil {
		return Measurement{}, err
	}
	m.FormatName = mp4FormatName
	m.Size = in.size()
	m.fill(res)
	return m, nil
}

// mp4Track is what the sound track says of how to decode it.
type mp4Track struct {
	cfg        aacdec.Config // from the AudioSpecificConfig, parsed once
	cfgErr     error         // why cfg cannot be decoded, if it cannot
	stbl       []byte
	trak       int        // the track's ordinal among moov's trak boxes
	tables     *mp4Tables // where its long sample tables are, if anywhere
	mediaScale uint32
	movieScale uint32
	skip       int64 // the edit list's media time, in the media's timescale
	keep       int64 // the edit list's duration in the movie's timescale, or −1 for all
}

// measure decodes and measures the track's samples, which next returns in file order.
func (tr mp4Track) measure(in *source, m *Measurement, next func() ([]byte, error)) (MeterResult, error) {
	cfg := tr.cfg
	if err := tr.cfgErr; err != nil {
		if errors.Is(err, aacdec.ErrUnsupported) {
			return MeterResult{}, fmt.Errorf("%w: %w", ErrUnsupportedCodec, err)
		}
		return MeterResult{}, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	m.Channels, m.SampleRate = cfg.Channels, cfg.SampleRate
	res, concealed, err := measureAACBlocks(in, cfg, tr.trim(cfg.SampleRate), next)
	m.ConcealedFrames = concealed
	return res, err
}

// trim is what the edit list cuts from the decode, in samples at rate.
func (tr mp4Track) trim(rate int) aacTrim {
	t := aacTrim{skip: scaleTo(tr.skip, tr.mediaScale, rate), keep: -1}
	if tr.keep >= 0 {
		t.keep = scaleTo(tr.keep, tr.movieScale, rate)
	}
	return t
}

// scaleTo converts v units of 1/scale s to samples at rate, rounding to the nearest.
func scaleTo(v int64, scale uint32, rate int) int64 {
	if scale == 0 || v <= 0 {
		return 0
	}
	return int64((float64(v)*float64(rate))/float64(scale) + 0.5)
}

// maxSample bounds an AAC sample's size: 6144 bits per channel, for two channels, with room.
const maxSample = 1 << 16

// sampleSource returns the track's samples in file order, each read into one buffer by fetch.
func sampleSource(tr mp4Track, fetch func(sample []byte, off uint64) error) func() ([]byte, error) {
	it, err := newMP4Samples(tr)
	buf := make([]byte, maxSample)
	return func() ([]byte, error) {
		if err != nil {
			return nil, err
		}
		off, size, ok := it.next()
		if !ok {
			return nil, io.EOF
		}
		if size > maxSample {
			return nil, fmt.Errorf("%w: MP4 sample of %d bytes", ErrMalformed, size)
		}
		if err := fetch(buf[:size], off); err != nil {
			return nil, err
		}
		return buf[:size], nil
	}
}

// streamSamples returns the samples of the track from the input, which is at the start of a
// media data box and moves forward only: the samples must come in file order.
func streamSamples(in *source, tr mp4Track) func() ([]byte, error) {
	return sampleSource(tr, func(sample []byte, off uint64) error {
		pos := in.size()
		if int64(off) < pos {
			return fmt.Errorf("%w: MP4 samples out of file order (sample at %d, after %d)", ErrMalformed, off, pos)
		}
		if _, err := io.CopyN(io.Discard, in.r, int64(off)-pos); err != nil {
			return io.EOF // the file is cut short: measure what there was
		}
		if _, err := io.ReadFull(in.r, sample); err != nil {
			return io.EOF
		}
		return nil
	})
}

// mp4Spill is a media data box copied to a temporary file because the moov box, which says
// where the samples are, comes after it.
type mp4Spill struct {
	f     *os.File
	start int64 // the box body's offset in the input
	size  int64
}

// spillMedia copies a media data box's body (to the end of the input when body < 0), refusing
// it past limit bytes: a box of size 0 that streams forever would fill the disk.
func spillMedia(in *source, start, body, limit int64) (*mp4Spill, error) {
	f, err := os.CreateTemp("", "podqa-mdat-*")
	if err != nil {
		return nil, fmt.Errorf("audio: a temporary file for MP4 media data before its moov box: %w", err)
	}
	_ = os.Remove(f.Name()) // unlinked: gone when closed, whatever happens
	src := io.Reader(in.r)
	if body >= 0 {
		src = io.LimitReader(in.r, body)
	}
	if limit < math.MaxInt64 {
		src = io.LimitReader(src, limit+1)
	}
	n, err := io.Copy(f, src)
	if err == nil && n > limit {
		err = fmt.Errorf("%w: MP4 media data before its moov box of more than %d bytes, the most copied to a temporary file", ErrOverCeiling, limit)
	}
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return &mp4Spill{f: f, start: start, size: n}, nil
}

func (s *mp4Spill) close() {
	if s != nil {
		_ = s.f.Close()
	}
}

// next returns the samples of the track from the copied media data.
func (s *mp4Spill) next(tr mp4Track) func() ([]byte, error) {
	return sampleSource(tr, func(sample []byte, off uint64) error {
		at := int64(off) - s.start
		if at < 0 || at+int64(len(sample)) > s.size {
			return io.EOF // outside the media data: the file is cut short
		}
		_, err := s.f.ReadAt(sample, at)
		return err
	})
}

// mp4Samples walks a sample table (stsc, stco or co64, stsz) in chunk order.
type mp4Samples struct {
	sizes   *mp4Entries // nil when every sample has fixedSize
	fixed   uint32
	count   uint32
	chunks  *mp4Entries // stco or co64
	runs    []byte      // stsc entries
	sample  uint32      // the next sample
	chunk   uint32      // the current chunk
	inChunk uint32      // samples left in it
	off     uint64
	run     int
}

// newMP4Samples checks that a track's sample table boxes hold the entries they claim.
func newMP4Samples(tr mp4Track) (*mp4Samples, error) {
	stbl := tr.stbl
	var f *os.File
	if tr.tables != nil {
		f = tr.tables.f
	}
	spilled := func(typ string) *mp4Section {
		if sec, ok := tr.tables.section(tr.trak, typ); ok {
			return &sec
		}
		return nil
	}
	stsz, ok := mp4Child(stbl, "stsz")
	if !ok || len(stsz) < 12 {
		return nil, fmt.Errorf("%w: MP4 track without a sample size table", ErrMalformed)
	}
	s := &mp4Samples{fixed: binary.BigEndian.Uint32(stsz[4:]), count: binary.BigEndian.Uint32(stsz[8:])}
	if s.fixed == 0 {
		if s.sizes, ok = newMP4Entries(stsz, 12, 4, uint64(s.count), spilled("stsz"), f); !ok {
			return nil, fmt.Errorf("%w: MP4 stsz claims %d samples in %d bytes", ErrMalformed, s.count, len(stsz))
		}
	}
	typ, width := "stco", uint64(4)
	co, ok := mp4Child(stbl, typ)
	if !ok {
		typ, width = "co64", 8
		co, ok = mp4Child(stbl, typ)
	}
	if ok && len(co) >= 8 {
		s.chunks, ok = newMP4Entries(co, 8, width, uint64(binary.BigEndian.Uint32(co[4:])), spilled(typ), f)
	}
	if !ok || len(co) < 8 {
		return nil, fmt.Errorf("%w: MP4 track without a valid chunk offset table", ErrMalformed)
	}
	stsc, ok := mp4Child(stbl, "stsc")
	if !ok || len(stsc) < 8 || uint64(len(stsc)-8) < 12*uint64(binary.BigEndian.Uint32(stsc[4:])) {
		return nil, fmt.Errorf("%w: MP4 track without a valid sample-to-chunk table", ErrMalformed)
	}
	s.runs = stsc[8 : 8+12*uint64(binary.BigEndian.Uint32(stsc[4:]))]
	return s, nil
}

// next returns the next sample's offset and size, or false after the last.
func (s *mp4Samples) next() (uint64, uint32, bool) {
	for s.inChunk == 0 {
		if s.sample >= s.count || len(s.runs) < 12 {
			return 0, 0, false
		}
		off, ok := s.chunks.get(uint64(s.chunk))
		if !ok {
			return 0, 0, false
		}
		s.off = off
		// The run of the chunk (first_chunk counts from 1).
		for s.run+1 < len(s.runs)/12 && binary.BigEndian.Uint32(s.runs[12*(s.run+1):]) <= s.chunk+1 {
			s.run++
		}
		s.inChunk = binary.BigEndian.Uint32(s.runs[12*s.run+4:])
		s.chunk++
	}
	size := s.fixed
	if s.sizes != nil {
		v, ok := s.sizes.get(uint64(s.sample))
		if !ok {
			return 0, 0, false
		}
		size = uint32(v)
	}
	off := s.off
	s.off += uint64(size)
	s.sample++
	s.inChunk--
	return off, size, true
}

// mp4Box is a box inside a parsed buffer.
type mp4Box struct {
	typ  string
	body []byte
}

// mp4Children splits a buffer into boxes; a box overrunning the buffer ends the list, and so
// does the maxMoovBoxes-th, so that a buffer of empty boxes costs a bounded list.
func mp4Children(b []byte) []mp4Box {
	var out []mp4Box
	for c := range mp4Boxes(b) {
		out = append(out, c)
	}
	return out
}

// mp4Boxes yields the boxes of a buffer as mp4Children lists them, holding none.
func mp4Boxes(b []byte) iter.Seq[mp4Box] {
	return func(yield func(mp4Box) bool) {
		for n := 0; len(b) >= 8 && n < maxMoovBoxes; n++ {
			size := uint64(binary.BigEndian.Uint32(b))
			hdr := uint64(8)
			switch size {
			case 0:
				size = uint64(len(b))
			case 1:
				if len(b) < 16 {
					return
				}
				size, hdr = binary.BigEndian.Uint64(b[8:]), 16
			}
			if size < hdr || size > uint64(len(b)) {
				return
			}
			if !yield(mp4Box{typ: string(b[4:8]), body: b[hdr:size]}) {
				return
			}
			b = b[size:]
		}
	}
}

// mp4Child returns the first child of type typ along a path of types.
func mp4Child(b []byte, path ...string) ([]byte, bool) {
	for _, p := range path {
		found := false
		for c := range mp4Boxes(b) {
			if c.typ == p {
				b, found = c.body, true
				break
			}
		}
		if !found {
			return nil, false
		}
	}
	return b, true
}

// fullBoxTimes reads a version-0 or -1 header's timescale and duration (mvhd, mdhd).
func fullBoxTimes(b []byte) (scale uint32, dur uint64, ok bool) {
	if len(b) < 1 {
		return 0, 0, false
	}
	if b[0] == 1 {
		if len(b) < 32 {
			return 0, 0, false
		}
		return binary.BigEndian.Uint32(b[20:]), binary.BigEndian.Uint64(b[24:]), true
	}
	if len(b) < 20 {
		return 0, 0, false
	}
	return binary.BigEndian.Uint32(b[12:]), uint64(binary.BigEndian.Uint32(b[16:])), true
}

func scaledDuration(v uint64, scale uint32) time.Duration {
	if scale == 0 {
		return 0
	}
	sec := v / uint64(scale)
	rem := v % uint64(scale)
	if sec > uint64(1<<63-1)/uint64(time.Second) {
		return 0
	}
	return time.Duration(sec)*time.Second + time.Duration(rem*uint64(time.Second)/uint64(scale))
}

// parseMoov reads the first sound track and the metadata of a moov box.
func parseMoov(moov []byte, tables *mp4Tables) (Measurement, mp4Track, error) {
	var m Measurement
	var tr mp4Track
	mvhd, _ := mp4Child(moov, "mvhd")
	movieScale, _, _ := fullBoxTimes(mvhd)
	found := false
	trak := -1
	for _, c := range mp4Children(moov) {
		if c.typ != "trak" {
			continue
		}
		trak++
		hdlr, ok := mp4Child(c.body, "mdia", "hdlr")
		if !ok || len(hdlr) < 12 || string(hdlr[8:12]) != "soun" {
			continue
		}
		mdhd, _ := mp4Child(c.body, "mdia", "mdhd")
		scale, dur, ok := fullBoxTimes(mdhd)
		if !ok || scale == 0 {
			return m, tr, fmt.Errorf("%w: MP4 sound track without a media header", ErrMalformed)
		}
		m.Duration = scaledDuration(dur, scale)
		tr = mp4Track{mediaScale: scale, movieScale: movieScale, keep: -1, trak: trak, tables: tables}
		if elst, ok := mp4Child(c.body, "edts", "elst"); ok && movieScale > 0 {
			if d, ok := editDuration(elst); ok {
				m.Duration = scaledDuration(d, movieScale)
				tr.keep = int64(d)
				tr.skip = editMediaTime(elst)
			}
		}
		stbl, _ := mp4Child(c.body, "mdia", "minf", "stbl")
		tr.stbl = stbl
		stsd, ok := mp4Child(stbl, "stsd")
		if !ok || len(stsd) < 8 {
			return m, tr, fmt.Errorf("%w: MP4 sound track without sample descriptions", ErrMalformed)
		}
		entries := mp4Children(stsd[8:])
		if len(entries) == 0 || len(entries[0].body) < 28 {
			return m, tr, fmt.Errorf("%w: MP4 sound track with a bad sample description", ErrMalformed)
		}
		e := entries[0]
		m.Channels = int(binary.BigEndian.Uint16(e.body[16:]))
		m.SampleRate = int(binary.BigEndian.Uint32(e.body[24:]) >> 16)
		m.CodecName = mp4desc.Codec(e.typ, esdsBody(e))
		// The AudioSpecificConfig is the truth for AAC; stsd often says 2 channels regardless.
		if asc, ok := esdsConfig(e); ok {
			tr.cfg, tr.cfgErr = aacdec.ParseConfig(asc)
			if tr.cfg.Channels > 0 {
				m.Channels = tr.cfg.Channels
			}
			if tr.cfg.SampleRate > 0 {
				m.SampleRate = tr.cfg.SampleRate
			}
		} else {
			tr.cfgErr = fmt.Errorf("%w: MP4 AAC track without an AudioSpecificConfig", aacdec.ErrMalformed)
		}
		if stsz, ok := mp4Child(stbl, "stsz"); ok && dur > 0 {
			total, ok := stszTotal(stsz)
			if sec, spilled := tables.section(trak, "stsz"); spilled {
				total, ok = sec.sum, true
			}
			if ok {
				m.BitRate = int64(float64(total) * 8 * float64(scale) / float64(dur))
			}
		}
		found = true
		break
	}
	if !found {
		return m, tr, fmt.Errorf("%w: MP4 file without a sound track", ErrUnsupportedCodec)
	}
	if m.SampleRate <= 0 {
		m.SampleRate = 0
	}
	if m.Duration > 0 && m.SampleRate > 0 {
		m.Frames = int64(m.Duration.Seconds()*float64(m.SampleRate) + 0.5)
	}
	m.Tags, m.Cover = mp4Tags(moov)
	m.Tags.Chapters = sortChapters(m.Tags.Chapters, m.Duration)
	return m, tr, nil
}

// editMediaTime is the media time of an elst box's first non-empty segment (where playback
// starts in the media: the encoder's priming), in the media's timescale.
func editMediaTime(b []byte) int64 {
	if len(b) < 8 {
		return 0
	}
	v1 := b[0] == 1
	n := int(binary.BigEndian.Uint32(b[4:]))
	b = b[8:]
	for range n {
		var mt int64
		if v1 {
			if len(b) < 20 {
				return 0
			}
			mt, b = int64(binary.BigEndian.Uint64(b[8:])), b[20:]
		} else {
			if len(b) < 12 {
				return 0
			}
			mt, b = int64(int32(binary.BigEndian.Uint32(b[4:]))), b[12:]
		}
		if mt >= 0 {
			return mt
		}
	}
	return 0
}

// editDuration sums the non-empty segments of an elst box, in the movie's timescale.
func editDuration(b []byte) (uint64, bool) {
	if len(b) < 8 {
		return 0, false
	}
	v1 := b[0] == 1
	n := int(binary.BigEndian.Uint32(b[4:]))
	b = b[8:]
	var total uint64
	found := false
	for range n {
		if v1 {
			if len(b) < 20 {
				break
			}
			d, mt := binary.BigEndian.Uint64(b), int64(binary.BigEndian.Uint64(b[8:]))
			if mt >= 0 {
				total += d
				found = true
			}
			b = b[20:]
		} else {
			if len(b) < 12 {
				break
			}
			d, mt := binary.BigEndian.Uint32(b), int32(binary.BigEndian.Uint32(b[4:]))
			if mt >= 0 {
				total += uint64(d)
				found = true
			}
			b = b[12:]
		}
	}
	return total, found && total > 0
}

// esdsBody returns the body of an mp4a sample entry's esds box, or nil.
func esdsBody(e mp4Box) []byte {
	if e.typ != "mp4a" || len(e.body) < 28 {
		return nil
	}
	esds, _ := mp4Child(e.body[28:], "esds")
	return esds
}

// esdsConfig returns the DecoderSpecificInfo of an mp4a entry's esds box.
func esdsConfig(e mp4Box) ([]byte, bool) {
	_, dsi, ok := mp4desc.ESDS(esdsBody(e))
	return dsi, ok && len(dsi) >= 2
}

// stszTotal sums a stsz box's sample sizes.
func stszTotal(b []byte) (uint64, bool) {
	if len(b) < 12 {
		return 0, false
	}
	size := uint64(binary.BigEndian.Uint32(b[4:]))
	count := uint64(binary.BigEndian.Uint32(b[8:]))
	if size != 0 {
		return size * count, true
	}
	b = b[12:]
	if uint64(len(b)) < 4*count {
		return 0, false
	}
	var total uint64
	for i := range count {
		total += uint64(binary.BigEndian.Uint32(b[4*i:]))
	}
	return total, true
}

// mp4Tags reads iTunes-style ilst items and Nero chapters from moov/udta.
func mp4Tags(moov []byte) (Tags, *Cover) {
	var t Tags
	var cover *Cover
	udta, ok := mp4Child(moov, "udta")
	if !ok {
		return t, nil
	}
	if meta, ok := mp4Child(udta, "meta"); ok {
		// MP4's meta is a full box; QuickTime's is not.
		if len(meta) >= 4 && binary.BigEndian.Uint32(meta) == 0 {
			meta = meta[4:]
		}
		ilst, _ := mp4Child(meta, "ilst")
		for _, item := range mp4Children(ilst) {
			data, ok := mp4Child(item.body, "data")
			if !ok || len(data) < 8 {
				continue
			}
			kind := binary.BigEndian.Uint32(data) & 0xFFFFFF
			val := data[8:]
			switch item.typ {
			case "\xa9nam":
				t.Title = cleanText(string(val))
			case "\xa9ART":
				t.Artist = cleanText(string(val))
			case "\xa9alb":
				t.Album = cleanText(string(val))
			case "\xa9day":
				t.Year = cleanText(string(val))
			case "cprt", "\xa9cpy":
				t.Copyright = cleanText(string(val))
			case "\xa9cmt", "desc":
				t.addComment(string(val))
			case "trkn":
				if len(val) >= 4 {
					t.Track = int(binary.BigEndian.Uint16(val[2:]))
				}
			case "covr":
				if cover != nil {
					continue
				}
				mime := ""
				switch kind {
				case 13:
					mime = "image/jpeg"
				case 14:
					mime = "image/png"
				}
				cover = newCover(val, mime)
			}
		}
	}
	if chpl, ok := mp4Child(udta, "chpl"); ok {
		t.Chapters = neroChapters(chpl)
	}
	return t, cover
}

// neroChapters reads a Nero chpl box: starts in 100 ns units and titles.
func neroChapters(b []byte) []Chapter {
	if len(b) < 5 {
		return nil
	}
	p := 4
	if b[0] != 0 {
		p += 4
	}
	if p >= len(b) {
		return nil
	}
	n := int(b[p])
	p++
	var out []Chapter
	for range n {
		if p+9 > len(b) {
			break
		}
		start := binary.BigEndian.Uint64(b[p:])
		l := int(b[p+8])
		p += 9
		if p+l > len(b) || start > uint64(1<<62)/100 {
			break
		}
		out = append(out, Chapter{Start: time.Duration(start * 100), Title: cleanText(string(b[p : p+l]))})
		p += l
	}
	return out
}
