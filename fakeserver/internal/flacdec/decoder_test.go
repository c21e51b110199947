package flacdec

import (
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// streamInfo is what the tests need of a fixture's metadata.
type streamInfo struct {
	StreamInfo
	channels int
	samples  uint64
	md5      [16]byte
}

// splitFLAC returns the STREAMINFO of a FLAC file and its frames (what follows the metadata).
func splitFLAC(t testing.TB, b []byte) (streamInfo, []byte) {
	t.Helper()
	if !bytes.HasPrefix(b, []byte("fLaC")) {
		t.Fatal("not a FLAC file")
	}
	var si streamInfo
	p := 4
	for {
		if p+4 > len(b) {
			t.Fatal("metadata runs past the end")
		}
		last, typ := b[p]&0x80 != 0, b[p]&0x7F
		n := int(b[p+1])<<16 | int(b[p+2])<<8 | int(b[p+3])
		body := b[p+4 : p+4+n]
		if typ == 0 {
			v := binary.BigEndian.Uint64(body[10:18])
			si.SampleRate = int(v >> 44)
			si.channels = int(v>>41&7) + 1
			si.BitsPerSample = int(v>>36&31) + 1
			si.samples = v & (1<<36 - 1)
			copy(si.md5[:], body[18:34])
		}
		p += 4 + n
		if last {
			return si, b[p:]
		}
	}
}

// decodeAll decodes every frame and returns the interleaved samples, the count of frames and
// the frames' sample size.
func decodeAll(t testing.TB, si StreamInfo, frames []byte) ([][]int32, int, int) {
	t.Helper()
	d := NewDecoder(bytes.NewReader(frames), si)
	var out [][]int32
	nframes, bps := 0, 0
	for {
		f, err := d.Next()
		if errors.Is(err, io.EOF) {
			return out, nframes, bps
		}
		if err != nil {
			t.Fatalf("frame %d: %v", nframes, err)
		}
		if out == nil {
			out = make([][]int32, len(f.Samples))
		}
		for c, s := range f.Samples {
			out[c] = append(out[c], s...)
		}
		nframes++
		bps = f.BitsPerSample
	}
}

// TestMatchesFFmpeg holds the decoder to ffmpeg's decode of every fixture (testdata/gen.sh) and
// to the MD5 signature of the audio its encoder stored.
func TestMatchesFFmpeg(t *testing.T) {
	t.Parallel()
	refs, err := os.ReadFile("testdata/ffmpeg.sha256")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(refs)), "\n")
	if len(lines) < 12 {
		t.Fatalf("%d references, want every fixture's", len(lines))
	}
	for _, line := range lines {
		name, want, _ := strings.Cut(line, " ")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			si, frames := splitFLAC(t, b)
			chans, nframes, bps := decodeAll(t, si.StreamInfo, frames)
			if len(chans) != si.channels || uint64(len(chans[0])) != si.samples || bps != si.BitsPerSample {
				t.Fatalf("decoded %d channels of %d samples of %d bits, STREAMINFO says %d of %d of %d",
					len(chans), len(chans[0]), bps, si.channels, si.samples, si.BitsPerSample)
			}
			// ffmpeg's pcm_s32le: each sample at the top of 32 bits, interleaved.
			h := sha256.New()
			sig := md5.New()
			width := (bps + 7) / 8
			var w [4]byte
			for i := range chans[0] {
				for c := range chans {
					v := chans[c][i]
					binary.LittleEndian.PutUint32(w[:], uint32(v)<<(32-bps))
					h.Write(w[:])
					binary.LittleEndian.PutUint32(w[:], uint32(v))
					sig.Write(w[:width])
				}
			}
			if got := hex.EncodeToString(h.Sum(nil)); got != want {
				t.Errorf("SHA-256 of the decode %s, ffmpeg's %s (%d frames)", got, want, nframes)
			}
			if got := sig.Sum(nil); !bytes.Equal(got, si.md5[:]) {
				t.Errorf("MD5 of the decode %x, STREAMINFO says %x", got, si.md5)
			}
		})
	}
}

// TestBadFrames checks that damage anywhere in a frame is an error wrapping ErrCorrupt and that
// a stream ending inside a frame is not taken for its end.
func TestBadFrames(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/s16_44k_stereo.flac")
	if err != nil {
		t.Fatal(err)
	}
	si, frames := splitFLAC(t, b)
	flip := func(off int) []byte {
		c := bytes.Clone(frames)
		c[off] ^= 0x10
		return c
	}
	tests := []struct {
		name  string
		input []byte
	}{
		{"sync", flip(0)},
		{"header (CRC-8)", flip(3)},
		{"subframe data (CRC-16)", flip(200)},
		{"CRC-16 itself", flip(len(frames) - 1)},
		{"cut inside the last frame", frames[:len(frames)-3]},
		{"cut inside the first header", frames[:3]},
		{"garbage after the last frame", append(bytes.Clone(frames), 0, 1, 2, 3)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := NewDecoder(bytes.NewReader(tt.input), si.StreamInfo)
			for {
				_, err := d.Next()
				if err == nil {
					continue
				}
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("got %v, want ErrCorrupt", err)
				}
				return
			}
		})
	}
	t.Run("empty", func(t *testing.T) {
		t.Parallel()
		if _, err := NewDecoder(bytes.NewReader(nil), si.StreamInfo).Next(); err != io.EOF {
			t.Fatalf("got %v, want io.EOF", err)
		}
	})
}

// TestReaderError checks that the reader's own error comes back as it is.
func TestReaderError(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/s16_44k_stereo.flac")
	if err != nil {
		t.Fatal(err)
	}
	si, frames := splitFLAC(t, b)
	boom := errors.New("boom")
	r := io.MultiReader(bytes.NewReader(frames[:len(frames)/2]), &errReader{boom})
	d := NewDecoder(r, si.StreamInfo)
	for {
		if _, err := d.Next(); err != nil {
			if !errors.Is(err, boom) {
				t.Fatalf("got %v, want the reader's error", err)
			}
			return
		}
	}
}

type errReader struct{ err error }

func (e *errReader) Read([]byte) (int, error) { return 0, e.err }

// TestOneByteReads decodes through a reader that gives one byte at a time, so that every code
// crosses the end of the buffer somewhere.
func TestOneByteReads(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/s16_48k_midside_lpc32.flac")
	if err != nil {
		t.Fatal(err)
	}
	si, frames := splitFLAC(t, b)
	want, _, _ := decodeAll(t, si.StreamInfo, frames)
	d := NewDecoder(&oneByte{frames}, si.StreamInfo)
	var got [][]int32
	for {
		f, err := d.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if got == nil {
			got = make([][]int32, len(f.Samples))
		}
		for c, s := range f.Samples {
			got[c] = append(got[c], s...)
		}
	}
	for c := range want {
		if !slicesEqual(got[c], want[c]) {
			t.Fatalf("channel %d differs when read a byte at a time", c)
		}
	}
}

type oneByte struct{ b []byte }

func (o *oneByte) Read(p []byte) (int, error) {
	if len(o.b) == 0 {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	p[0] = o.b[0]
	o.b = o.b[1:]
	return 1, nil
}

func slicesEqual(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestCRC16 holds the table-driven CRC-16 to its bitwise definition.
func TestCRC16(t *testing.T) {
	t.Parallel()
	bitwise := func(b []byte) uint16 {
		var c uint16
		for _, v := range b {
			c ^= uint16(v) << 8
			for range 8 {
				if c&0x8000 != 0 {
					c = c<<1 ^ 0x8005
				} else {
					c <<= 1
				}
			}
		}
		return c
	}
	data := make([]byte, 300)
	for i := range data {
		data[i] = byte(i*131 + i>>3)
	}
	for n := range len(data) {
		if got, want := crc16(data[:n]), bitwise(data[:n]); got != want {
			t.Fatalf("crc16 of %d bytes = %#04x, want %#04x", n, got, want)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	data, err := os.ReadFile("testdata/s16_44k_stereo.flac")
	if err != nil {
		b.Fatal(err)
	}
	si, frames := splitFLAC(b, data)
	b.SetBytes(int64(len(frames)))
	b.ReportAllocs()
	r := bytes.NewReader(frames)
	for b.Loop() {
		r.Reset(frames)
		d := NewDecoder(r, si.StreamInfo)
		for {
			if _, err := d.Next(); err != nil {
				if !errors.Is(err, io.EOF) {
					b.Fatal(err)
				}
				break
			}
		}
	}
}
