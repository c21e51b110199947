package probe

import (
	"encoding/binary"
	"fmt"
	"time"
)

// WAV format tags.
const (
	wavePCM        = 0x0001
	waveFloat      = 0x0003
	waveALaw       = 0x0006
	waveMuLaw      = 0x0007
	waveExtensible = 0xFFFE
)

// maxFmtChunk bounds the fmt chunk; longer ones are malformed.
const maxFmtChunk = 1 << 12

// ksGUIDTail is the tail shared by the KSDATAFORMAT_SUBTYPE_* GUIDs of WAVE_FORMAT_EXTENSIBLE.
var ksGUIDTail = [14]byte{0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71}

type wavFmt struct {
	tag        uint32
	channels   int
	rate       uint32
	byteRate   uint32
	blockAlign uint32
	bits       int
}

// probeWAV reads a RIFF/WAVE (rf64: RF64 or BW64) file whose 12-byte header is buffered.
func probeWAV(r *reader, rf64 bool) (Info, error) {
	if _, err := r.discard(12); err != nil {
		return Info{}, err
	}
	var (
		f        wavFmt
		haveFmt  bool
		ds64Data uint64
		haveDS64 bool
	)
	for {
		h, err := r.peek(8)
		if err != nil {
			return Info{}, err
		}
		if len(h) < 8 {
			return Info{}, malformed("wav: no data chunk")
		}
		id, size := string(h[:4]), uint64(le32(h[4:8]))
		if _, err := r.discard(8); err != nil {
			return Info{}, err
		}
		switch id {
		case "ds64":
			if !rf64 {
				break
			}
			b, err := r.peek(28)
			if err != nil {
				return Info{}, err
			}
			if size < 28 || len(b) < 28 {
				return Info{}, malformed("wav: ds64 chunk too short")
			}
			ds64Data = binary.LittleEndian.Uint64(b[8:16])
			haveDS64 = true
		case "fmt ":
			if size < 16 || size > maxFmtChunk {
				return Info{}, malformed("wav: fmt chunk of %d bytes", size)
			}
			b, err := r.peek(int(size))
			if err != nil {
				return Info{}, err
			}
			if uint64(len(b)) < size {
				return Info{}, malformed("wav: truncated fmt chunk")
			}
			if f, err = parseWAVFmt(b); err != nil {
				return Info{}, err
			}
			haveFmt = true
		case "data":
			if !haveFmt {
				return Info{}, malformed("wav: data chunk before fmt chunk")
			}
			var n int64
			switch {
			case size == 0xFFFFFFFF && haveDS64 && ds64Data != 0:
				n, err = r.discard(int64(min(ds64Data, 1<<62)))
			case size == 0 || size == 0xFFFFFFFF:
				n, err = r.discardAll()
			default:
				n, err = r.discard(int64(size))
			}
			if err != nil {
				return Info{}, err
			}
			return f.info(uint64(n))
		}
		skip := size + size&1 // chunks are word aligned; peeked chunks are not yet consumed
		if got, err := r.discard(int64(skip)); err != nil {
			return Info{}, err
		} else if uint64(got) < skip {
			if id == "ds64" || id == "fmt " {
				return Info{}, malformed("wav: truncated %q chunk", id)
			}
			return Info{}, malformed("wav: no data chunk")
		}
	}
}

func parseWAVFmt(b []byte) (wavFmt, error) {
	f := wavFmt{
		tag:        le16(b[0:2]),
		channels:   int(le16(b[2:4])),
		rate:       le32(b[4:8]),
		byteRate:   le32(b[8:12]),
		blockAlign: le16(b[12:14]),
		bits:       int(le16(b[14:16])),
	}
	if f.tag == waveExtensible && len(b) >= 40 && le16(b[16:18]) >= 22 && [14]byte(b[26:40]) == ksGUIDTail {
		f.tag = le16(b[24:26])
	}
	switch {
	case f.channels == 0:
		return f, malformed("wav: 0 channels")
	case f.rate == 0:
		return f, malformed("wav: sample rate 0")
	case f.blockAlign == 0:
		return f, malformed("wav: block align 0")
	}
	return f, nil
}

// codec names the encoding as ffprobe does, or returns "" for tags it does not name.
func (f wavFmt) codec() string {
	bits := f.bits
	if f.blockAlign%uint32(f.channels) == 0 {
		bits = int(f.blockAlign/uint32(f.channels)) * 8
	}
	switch f.tag {
	case wavePCM:
		switch bits {
		case 8:
			return "pcm_u8"
		case 16, 24, 32, 64:
			return fmt.Sprintf("pcm_s%dle", bits)
		}
	case waveFloat:
		if bits == 32 || bits == 64 {
			return fmt.Sprintf("pcm_f%dle", bits)
		}
	case waveALaw:
		return "pcm_alaw"
	case waveMuLaw:
		return "pcm_mulaw"
	}
	return ""
}

// info computes the result for n bytes of sample data.
func (f wavFmt) info(n uint64) (Info, error) {
	in := Info{Format: "wav", Codec: f.codec(), SampleRate: int(f.rate), Channels: f.channels}
	var (
		d   time.Duration
		err error
	)
	switch f.tag {
	case wavePCM, waveFloat, waveALaw, waveMuLaw:
		d, err = samplesDuration(n/uint64(f.blockAlign), uint64(f.rate))
	default:
		if f.byteRate == 0 {
			return Info{}, malformed("wav: format tag 0x%04x with byte rate 0", f.tag)
		}
		d, err = samplesDuration(n, uint64(f.byteRate))
	}
	if err != nil {
		return Info{}, err
	}
	in.Duration = d
	return in, nil
}
