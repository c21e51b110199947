package probe

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"
	"time"

	"github.com/podqa/podqa-go/internal/mpegaudio"
)

// dur is n samples at rate, truncated to the nanosecond.
func dur(n, rate int64) time.Duration {
	return time.Duration(n/rate)*time.Second + time.Duration(n%rate)*time.Second/time.Duration(rate)
}

// --- WAV ---

type wavOpts struct {
	channels, rate, bits int
	float, extensible    bool
	frames               int
	dataSize             int64 // -1: real size; else this value in the header
	rf64                 bool
	listChunk            bool
}

func makeWAV(o wavOpts) []byte {
	block := o.channels * o.bits / 8
	data := make([]byte, o.frames*block)
	tag := uint16(1)
	if o.float {
		tag = 3
	}
	var f bytes.Buffer
	le := binary.LittleEndian
	if o.extensible {
		f.Write(le.AppendUint16(nil, 0xFFFE))
	} else {
		f.Write(le.AppendUint16(nil, tag))
	}
	f.Write(le.AppendUint16(nil, uint16(o.channels)))
	f.Write(le.AppendUint32(nil, uint32(o.rate)))
	f.Write(le.AppendUint32(nil, uint32(o.rate*block)))
	f.Write(le.AppendUint16(nil, uint16(block)))
	f.Write(le.AppendUint16(nil, uint16(o.bits)))
	if o.extensible {
		f.Write(le.AppendUint16(nil, 22))
		f.Write(le.AppendUint16(nil, uint16(o.bits)))
		f.Write(le.AppendUint32(nil, 3))
		f.Write(le.AppendUint16(nil, tag))
		f.Write(ksGUIDTail[:])
	}
	var b bytes.Buffer
	magic := "RIFF"
	if o.rf64 {
		magic = "RF64"
	}
	b.WriteString(magic)
	b.Write(le.AppendUint32(nil, 0xFFFFFFFF))
	b.WriteString("WAVE")
	if o.rf64 {
		b.WriteString("ds64")
		b.Write(le.AppendUint32(nil, 28))
		b.Write(le.AppendUint64(nil, 0))
		b.Write(le.AppendUint64(nil, uint64(len(data))))
		b.Write(le.AppendUint64(nil, uint64(o.frames)))
		b.Write(le.AppendUint32(nil, 0))
	}
	b.WriteString("fmt ")
	b.Write(le.AppendUint32(nil, uint32(f.Len())))
	b.Write(f.Bytes())
	if o.listChunk {
		b.WriteString("LIST")
		b.Write(le.AppendUint32(nil, 5))
		b.WriteString("INFOx\x00") // odd size plus pad byte
	}
	b.WriteString("data")
	size := uint32(len(data))
	if o.dataSize >= 0 {
		size = uint32(o.dataSize)
	}
	b.Write(le.AppendUint32(nil, size))
	b.Write(data)
	return b.Bytes()
}

// --- MP3 ---

// mpegFrame builds a frame with a zero payload: b1 is the second header byte (version,
// layer, no CRC), brIdx and srIdx index the tables, mono selects channel mode 3.
func mpegFrame(b1 byte, brIdx, srIdx int, pad, mono bool) []byte {
	hdr := []byte{0xFF, b1, byte(brIdx<<4 | srIdx<<2), 0x00}
	if pad {
		hdr[2] |= 2
	}
	if mono {
		hdr[3] = 0xC0
	}
	h, ok := mpegaudio.ParseHeader(hdr)
	if !ok {
		panic("bad test header")
	}
	f := make([]byte, h.Size)
	copy(f, hdr)
	return f
}

const (
	mpeg1L3 = 0xFB // MPEG-1 Layer III, no CRC
	mpeg2L3 = 0xF3 // MPEG-2 Layer III, no CRC
)

// mp3Stream builds n 44.1 kHz 128 kbit/s stereo MPEG-1 Layer III frames of 417/418 bytes.
func mp3Stream(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		b.Write(mpegFrame(mpeg1L3, 9, 0, i%2 == 1, false))
	}
	return b.Bytes()
}

func id3v2(size int, footer bool) []byte {
	flags := byte(0)
	if footer {
		flags = 0x10
	}
	b := []byte{'I', 'D', '3', 4, 0, flags, byte(size >> 21 & 0x7F), byte(size >> 14 & 0x7F), byte(size >> 7 & 0x7F), byte(size & 0x7F)}
	b = append(b, make([]byte, size)...)
	if footer {
		b = append(b, '3', 'D', 'I', 4, 0, flags, b[6], b[7], b[8], b[9])
	}
	return b
}

func id3v1() []byte {
	b := make([]byte, 128)
	copy(b, "TAGtitle")
	return b
}

// infoFrame builds a LAME "Info" frame with the given encoder delay and padding.
func infoFrame(delay, padding int) []byte {
	f := mpegFrame(mpeg1L3, 9, 0, false, false)
	off := 4 + 32
	copy(f[off:], "Info")
	binary.BigEndian.PutUint32(f[off+4:], 0x0F)
	p := off + 8 + 4 + 4 + 100 + 4
	copy(f[p:], "LAME3.100")
	f[p+21] = byte(delay >> 4)
	f[p+22] = byte(delay&0x0F)<<4 | byte(padding>>8)
	f[p+23] = byte(padding)
	return f
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// --- FLAC ---

func makeFLAC(rate, channels, bps int, total uint64) []byte {
	si := make([]byte, 34)
	binary.BigEndian.PutUint16(si[0:], 4096)
	binary.BigEndian.PutUint16(si[2:], 4096)
	si[10] = byte(rate >> 12)
	si[11] = byte(rate >> 4)
	si[12] = byte(rate<<4) | byte(channels-1)<<1 | byte((bps-1)>>4)
	si[13] = byte((bps-1)&0x0F)<<4 | byte(total>>32&0x0F)
	binary.BigEndian.PutUint32(si[14:], uint32(total))
	b := []byte("fLaC")
	b = append(b, 0x80, 0, 0, 34) // last block, STREAMINFO, 34 bytes
	b = append(b, si...)
	return append(b, 0xFF, 0xF8, 0x69, 0x08) // start of a frame
}

// --- Ogg ---

func oggPage(flags byte, granule uint64, serial, seq uint32, packets ...[]byte) []byte {
	var lacing, body []byte
	for _, p := range packets {
		n := len(p)
		for n >= 255 {
			lacing = append(lacing, 255)
			n -= 255
		}
		lacing = append(lacing, byte(n))
		body = append(body, p...)
	}
	h := []byte("OggS")
	h = append(h, 0, flags)
	h = binary.LittleEndian.AppendUint64(h, granule)
	h = binary.LittleEndian.AppendUint32(h, serial)
	h = binary.LittleEndian.AppendUint32(h, seq)
	h = append(h, 0, 0, 0, 0, byte(len(lacing)))
	return cat(h, lacing, body)
}

func vorbisID(channels, rate int) []byte {
	p := []byte("\x01vorbis")
	p = binary.LittleEndian.AppendUint32(p, 0)
	p = append(p, byte(channels))
	p = binary.LittleEndian.AppendUint32(p, uint32(rate))
	p = append(p, make([]byte, 12)...)
	return append(p, 0xB8, 0x01)
}

func opusHead(channels, preskip int) []byte {
	p := []byte("OpusHead")
	p = append(p, 1, byte(channels))
	p = binary.LittleEndian.AppendUint16(p, uint16(preskip))
	p = binary.LittleEndian.AppendUint32(p, 44100)
	return append(p, 0, 0, 0)
}

// oggStream builds a stream with an identification page, a comment page, audio pages and a
// final EOS page at granule last.
func oggFile(serial uint32, ident []byte, last uint64) []byte {
	return cat(
		oggPage(oggBOS, 0, serial, 0, ident),
		oggPage(0, 0, serial, 1, []byte("\x03vorbis comments"), make([]byte, 600)),
		oggPage(0, last/2, serial, 2, make([]byte, 300), make([]byte, 20)),
		oggPage(0, ^uint64(0), serial, 3, make([]byte, 255*3)), // no packet ends here
		oggPage(oggEOS, last, serial, 4, make([]byte, 40)),
	)
}

// samples returns generated inputs of every format, for the fuzz corpus.
func samples() [][]byte {
	return [][]byte{
		makeWAV(wavOpts{channels: 1, rate: 16000, bits: 16, frames: 1000, dataSize: -1}),
		makeWAV(wavOpts{channels: 2, rate: 48000, bits: 24, frames: 100, dataSize: -1, extensible: true, listChunk: true}),
		makeWAV(wavOpts{channels: 2, rate: 8000, bits: 32, float: true, frames: 10, dataSize: 0, rf64: true}),
		cat(id3v2(100, true), mp3Stream(5), []byte("junk"), mp3Stream(3), id3v1()),
		cat(mp3Stream(3)),
		cat(infoFrame(576, 1000), mp3Stream(3)),
		makeFLAC(44100, 2, 16, 441000),
		oggFile(7, vorbisID(2, 44100), 44100),
		oggFile(9, opusHead(1, 312), 48312),
	}
}

func TestProbe(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	garbage := make([]byte, 3000)
	for i := range garbage {
		garbage[i] = byte(rng.UintN(255)) // no 0xFF: cannot sync
	}
	mpeg2 := func(n int, mono bool) []byte {
		var b bytes.Buffer
		for i := range n {
			b.Write(mpegFrame(mpeg2L3, 8, 0, i%3 == 0, mono)) // 22.05 kHz 64 kbit/s
		}
		return b.Bytes()
	}
	tests := []struct {
		name string
		in   []byte
		want Info
	}{
		{"wav mono 16", makeWAV(wavOpts{channels: 1, rate: 16000, bits: 16, frames: 24000, dataSize: -1}),
			Info{"wav", "pcm_s16le", 1500 * time.Millisecond, 16000, 1}},
		{"wav stereo 24 extensible list", makeWAV(wavOpts{channels: 2, rate: 48000, bits: 24, frames: 4800, dataSize: -1, extensible: true, listChunk: true}),
			Info{"wav", "pcm_s24le", 100 * time.Millisecond, 48000, 2}},
		{"wav float stereo", makeWAV(wavOpts{channels: 2, rate: 44100, bits: 32, float: true, frames: 44100 * 2, dataSize: -1}),
			Info{"wav", "pcm_f32le", 2 * time.Second, 44100, 2}},
		{"wav float64 extensible", makeWAV(wavOpts{channels: 1, rate: 8000, bits: 64, float: true, extensible: true, frames: 4000, dataSize: -1}),
			Info{"wav", "pcm_f64le", 500 * time.Millisecond, 8000, 1}},
		{"wav 8 bit", makeWAV(wavOpts{channels: 1, rate: 11025, bits: 8, frames: 11025, dataSize: -1}),
			Info{"wav", "pcm_u8", time.Second, 11025, 1}},
		{"wav data size 0", makeWAV(wavOpts{channels: 2, rate: 16000, bits: 16, frames: 8000, dataSize: 0}),
			Info{"wav", "pcm_s16le", 500 * time.Millisecond, 16000, 2}},
		{"wav data size ffffffff", makeWAV(wavOpts{channels: 1, rate: 16000, bits: 16, frames: 1600, dataSize: 0xFFFFFFFF}),
			Info{"wav", "pcm_s16le", 100 * time.Millisecond, 16000, 1}},
		{"wav truncated data", makeWAV(wavOpts{channels: 1, rate: 16000, bits: 16, frames: 1600, dataSize: 1 << 20}),
			Info{"wav", "pcm_s16le", 100 * time.Millisecond, 16000, 1}},
		{"rf64", makeWAV(wavOpts{channels: 2, rate: 48000, bits: 16, frames: 12000, dataSize: 0xFFFFFFFF, rf64: true}),
			Info{"wav", "pcm_s16le", 250 * time.Millisecond, 48000, 2}},
		{"wav trailing chunk", append(makeWAV(wavOpts{channels: 1, rate: 1000, bits: 16, frames: 3, dataSize: -1}), "id3 \x04\x00\x00\x00abcd"...),
			Info{"wav", "pcm_s16le", 3 * time.Millisecond, 1000, 1}},

		{"mp3 bare", mp3Stream(100), Info{"mp3", "mp3", dur(100*1152, 44100), 44100, 2}},
		{"mp3 two frames", mp3Stream(2), Info{"mp3", "mp3", dur(2*1152, 44100), 44100, 2}},
		{"mp3 id3v2 id3v1", cat(id3v2(1000, false), mp3Stream(50), id3v1()),
			Info{"mp3", "mp3", dur(50*1152, 44100), 44100, 2}},
		{"mp3 id3v2 footer garbage", cat(id3v2(300, true), garbage[:100], mp3Stream(20), garbage, mp3Stream(30), id3v1()),
			Info{"mp3", "mp3", dur(50*1152, 44100), 44100, 2}},
		{"mp3 leading garbage no tag", cat(garbage, mp3Stream(10)), Info{"mp3", "mp3", dur(10*1152, 44100), 44100, 2}},
		{"mp3 truncated last frame", cat(mp3Stream(10), mp3Stream(1)[:200]), Info{"mp3", "mp3", dur(10*1152, 44100), 44100, 2}},
		{"mp3 single bad sync in stream", cat(mp3Stream(10), []byte{0xFF, 0xFB, 0x90}, mp3Stream(10)),
			Info{"mp3", "mp3", dur(20*1152, 44100), 44100, 2}},
		{"mp3 ape tag", cat(mp3Stream(10), apeTag(), id3v1()), Info{"mp3", "mp3", dur(10*1152, 44100), 44100, 2}},
		{"mp3 lame info", cat(id3v2(10, false), infoFrame(576, 1000), mp3Stream(40)),
			Info{"mp3", "mp3", dur(40*1152-1576, 44100), 44100, 2}},
		{"mpeg2 22.05k stereo", mpeg2(200, false), Info{"mp3", "mp3", dur(200*576, 22050), 22050, 2}},
		{"mpeg2 22.05k mono id3", cat(id3v2(20, false), mpeg2(77, true), id3v1()), Info{"mp3", "mp3", dur(77*576, 22050), 22050, 1}},
		{"mpeg1 layer II", bytes.Repeat(mpegFrame(0xFD, 8, 1, false, true), 25), Info{"mp3", "mp2", dur(25*1152, 48000), 48000, 1}},
		{"mpeg1 layer I", bytes.Repeat(mpegFrame(0xFF, 4, 2, false, false), 25), Info{"mp3", "mp1", dur(25*384, 32000), 32000, 2}},

		{"flac", makeFLAC(44100, 2, 16, 441000*3+7), Info{"flac", "flac", dur(441000*3+7, 44100), 44100, 2}},
		{"flac 96k 6ch 24", makeFLAC(96000, 6, 24, 1<<35+5), Info{"flac", "flac", dur(1<<35+5, 96000), 96000, 6}},
		{"flac after id3", cat(id3v2(50, false), makeFLAC(8000, 1, 8, 16000)), Info{"flac", "flac", 2 * time.Second, 8000, 1}},

		{"ogg vorbis", oggFile(0x1234, vorbisID(2, 44100), 44100*3+17), Info{"ogg", "vorbis", dur(44100*3+17, 44100), 44100, 2}},
		{"ogg opus preskip", oggFile(1, opusHead(2, 312), 48000*2+312), Info{"ogg", "opus", 2 * time.Second, 48000, 2}},
		{"ogg multiplexed", cat(
			oggPage(oggBOS, 0, 5, 0, []byte("\x80theora video")),
			oggPage(oggBOS, 0, 6, 0, opusHead(1, 100)),
			oggPage(0, 0, 6, 1, []byte("OpusTags")),
			oggPage(0, 9999, 5, 1, make([]byte, 10)),
			oggPage(0, 4900, 6, 2, make([]byte, 10)),
			oggPage(oggEOS, 99999, 5, 2, make([]byte, 10)),
			garbage[:50],
			oggPage(0, 48100, 6, 3, make([]byte, 10)),
			oggPage(0, 48000*50, 7, 0, make([]byte, 10)), // chained stream: ignored
		), Info{"ogg", "opus", time.Second, 48000, 1}},
		{"ogg truncated last page", cat(oggFile(3, vorbisID(1, 8000), 8000), oggPage(0, 80000, 3, 5, make([]byte, 100))[:60]),
			Info{"ogg", "vorbis", time.Second, 8000, 1}},
		{"ogg flac", cat(
			oggPage(oggBOS, 0, 2, 0, cat([]byte("\x7FFLAC\x01\x00\x00\x01"), makeFLAC(16000, 1, 16, 0)[:4+4+34])),
			oggPage(oggEOS, 32000, 2, 1, make([]byte, 10)),
		), Info{"ogg", "flac", 2 * time.Second, 16000, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, r := range []io.Reader{bytes.NewReader(tc.in), iotest.OneByteReader(bytes.NewReader(tc.in))} {
				got, err := Probe(r)
				if err != nil {
					t.Fatalf("Probe: %v", err)
				}
				if got != tc.want {
					t.Fatalf("Probe = %+v, want %+v", got, tc.want)
				}
			}
		})
	}
}

func apeTag() []byte {
	item := []byte("\x05\x00\x00\x00\x00\x00\x00\x00Title\x00\xFF\xFB\x90\x00\xFF")
	hdr := func(flags uint32) []byte {
		b := []byte("APETAGEX")
		b = binary.LittleEndian.AppendUint32(b, 2000)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(item)+32))
		b = binary.LittleEndian.AppendUint32(b, 1)
		b = binary.LittleEndian.AppendUint32(b, flags)
		return append(b, make([]byte, 8)...)
	}
	return cat(hdr(1<<31|1<<29), item, hdr(1<<31))
}

func TestProbeErrors(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	random := make([]byte, 1<<17)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	wav := makeWAV(wavOpts{channels: 1, rate: 16000, bits: 16, frames: 100, dataSize: -1})
	tests := []struct {
		name string
		in   []byte
		want error
	}{
		{"empty", nil, ErrUnknownFormat},
		{"random", random, ErrUnknownFormat},
		{"text", bytes.Repeat([]byte("hello world "), 100), ErrUnknownFormat},
		{"single mp3 frame", mp3Stream(1), ErrUnknownFormat},
		{"avi", []byte("RIFF\x00\x00\x00\x00AVI LIST"), ErrUnknownFormat},
		{"riff short", []byte("RIFF\x00\x00"), ErrMalformed},
		{"wav no fmt", append([]byte("RIFF\x00\x00\x00\x00WAVEdata\x04\x00\x00\x00"), 1, 2, 3, 4), ErrMalformed},
		{"wav truncated fmt", wav[:30], ErrMalformed},
		{"wav no data", wav[:36], ErrMalformed},
		{"wav zero channels", func() []byte { b := bytes.Clone(wav); b[22] = 0; return b }(), ErrMalformed},
		{"wav huge fmt", []byte("RIFF\x00\x00\x00\x00WAVEfmt \xFF\xFF\xFF\x00"), ErrMalformed},
		{"id3 only", id3v2(100, false), ErrMalformed},
		{"id3 truncated", id3v2(100, false)[:50], ErrMalformed},
		{"id3 garbage", cat(id3v2(10, false), random[:5000]), ErrMalformed},
		{"flac truncated", makeFLAC(44100, 2, 16, 100)[:20], ErrMalformed},
		{"flac zero total", makeFLAC(44100, 2, 16, 0), ErrMalformed},
		{"flac zero rate", makeFLAC(0, 2, 16, 100), ErrMalformed},
		{"flac no streaminfo", []byte("fLaC\x84\x00\x00\x04abcd"), ErrMalformed},
		{"ogg truncated", oggFile(1, vorbisID(2, 44100), 100)[:20], ErrMalformed},
		{"ogg theora only", oggPage(oggBOS, 0, 1, 0, []byte("\x80theora")), ErrUnknownFormat},
		{"ogg bad vorbis", oggPage(oggBOS, 0, 1, 0, vorbisID(0, 44100)), ErrMalformed},
		{"ogg short opus", oggPage(oggBOS, 0, 1, 0, []byte("OpusHead\x01")), ErrMalformed},
		{"ogg no granule", oggPage(oggBOS, ^uint64(0), 1, 0, opusHead(2, 0)), ErrMalformed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Probe(bytes.NewReader(tc.in))
			if !errors.Is(err, tc.want) {
				t.Fatalf("Probe = %+v, %v; want error %v", got, err, tc.want)
			}
			t.Log(err)
		})
	}
}

func TestProbeReadError(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	for _, in := range samples() {
		r := io.MultiReader(bytes.NewReader(in[:len(in)/2]), iotest.ErrReader(boom))
		if _, err := Probe(r); err != nil && (errors.Is(err, ErrMalformed) || errors.Is(err, ErrUnknownFormat)) && !errors.Is(err, boom) {
			// A format decided from the first half alone (FLAC) may succeed; any error
			// must be the read error.
			t.Errorf("Probe(%q...) = %v, want the read error", in[:4], err)
		}
	}
	if _, err := Probe(nil); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("Probe(nil) = %v", err)
	}
}

func TestSamplesDuration(t *testing.T) {
	t.Parallel()
	if _, err := samplesDuration(1<<63, 1); !errors.Is(err, ErrMalformed) {
		t.Errorf("overflow: %v", err)
	}
	if d, err := samplesDuration(1<<33-1, 1); err != nil || d != time.Duration(1<<33-1)*time.Second {
		t.Errorf("got %v, %v", d, err)
	}
}

func FuzzProbe(f *testing.F) {
	for _, s := range samples() {
		f.Add(s)
	}
	f.Add(aacFixture(f, "tone_m44.aac")[:2000])
	m4a := aacFixture(f, "speech_m48_fs.m4a")
	f.Add(m4a[:bytes.Index(m4a, []byte("mdat"))+100]) // moov, then the start of the media data
	f.Fuzz(func(t *testing.T, in []byte) {
		info, err := Probe(bytes.NewReader(in))
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrUnknownFormat) {
				t.Fatalf("unexpected error class: %v", err)
			}
			return
		}
		if info.Duration < 0 || info.SampleRate <= 0 || info.Channels <= 0 || info.Format == "" {
			t.Fatalf("bad info %+v", info)
		}
		again, err := Probe(iotest.OneByteReader(bytes.NewReader(in)))
		if err != nil || again != info {
			t.Fatalf("one-byte reader: %+v, %v; want %+v", again, err, info)
		}
	})
}
