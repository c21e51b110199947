package aacheader

import "fmt"

// Audio object types of ISO/IEC 14496-3 Table 1.17 that name what a stream needs.
const (
	ObjectMain = 1
	ObjectLC   = 2
	ObjectSSR  = 3
	ObjectLTP  = 4
	ObjectSBR  = 5
	ObjectPS   = 29
)

// Profile names an audio object type as ffprobe's profile field does ("LC", "HE-AAC", …).
func Profile(objectType int) string {
	switch objectType {
	case ObjectMain:
		return "Main"
	case ObjectLC:
		return "LC"
	case ObjectSSR:
		return "SSR"
	case ObjectLTP:
		return "LTP"
	case ObjectSBR:
		return "HE-AAC"
	case ObjectPS:
		return "HE-AACv2"
	case 23:
		return "LD"
	case 39:
		return "ELD"
	case 42:
		return "xHE-AAC"
	}
	return fmt.Sprintf("audio object type %d", objectType)
}

// Config is what a stream's AudioSpecificConfig or ADTS header says of it.
type Config struct {
	// ObjectType is the audio object type; the decoder takes 2 (AAC LC).
	ObjectType int
	// SampleRate is the output rate in Hz.
	SampleRate int
	// Channels is 1 or 2 for what the decoder takes; 0 means a program config element in the
	// stream says it.
	Channels int
	// RateIndex is the sampling-frequency index whose tables the rate uses (ISO/IEC 14496-3
	// Table 4.82's ranges for an explicit rate).
	RateIndex int
}

// Check returns an error wrapping ErrUnsupported unless an AAC LC decoder of mono or stereo
// takes the configuration.
func (c Config) Check() error {
	if c.ObjectType != ObjectLC {
		return fmt.Errorf("%w: profile %s (only AAC LC is decoded)", ErrUnsupported, Profile(c.ObjectType))
	}
	if c.Channels != 1 && c.Channels != 2 {
		return fmt.Errorf("%w: channel configuration %d (only mono and stereo are decoded)", ErrUnsupported, c.Channels)
	}
	return nil
}

// ParseConfig reads an AudioSpecificConfig (ISO/IEC 14496-3 1.6.2.1), as an MP4 file's esds
// box carries it. HE-AAC and HE-AAC v2 are reported in ObjectType (5 and 29) whether they are
// signalled explicitly or by the backward-compatible extension after the LC configuration.
// Errors wrap ErrMalformed, or ErrUnsupported for what is valid but not decoded.
func ParseConfig(asc []byte) (Config, error) {
	r := &bitReader{buf: asc}
	objectType := func() int {
		t := int(r.read(5))
		if t == 31 {
			t = 32 + int(r.read(6))
		}
		return t
	}
	rate := func() (int, int) {
		i := int(r.read(4))
		switch {
		case i == 15:
			hz := int(r.read(24))
			return hz, rateIndex(hz)
		case i < len(sampleRates):
			return sampleRates[i], i
		}
		return 0, -1
	}
	var c Config
	c.ObjectType = objectType()
	c.SampleRate, c.RateIndex = rate()
	c.Channels = int(r.read(4))
	if r.overrun || c.RateIndex < 0 || c.SampleRate == 0 {
		return c, fmt.Errorf("%w: AudioSpecificConfig of %d bytes with no valid sampling rate", ErrMalformed, len(asc))
	}
	if c.ObjectType == ObjectSBR || c.ObjectType == ObjectPS {
		return c, fmt.Errorf("%w: profile %s (only AAC LC is decoded)", ErrUnsupported, Profile(c.ObjectType))
	}
	if c.ObjectType != ObjectLC {
		return c, c.Check()
	}
	if r.bit() {
		return c, fmt.Errorf("%w: 960-sample frames (only 1024-sample frames are decoded)", ErrUnsupported)
	}
	if r.bit() { // dependsOnCoreCoder
		return c, fmt.Errorf("%w: a core coder dependency", ErrUnsupported)
	}
	r.skip(1) // extensionFlag: nothing for AAC LC
	if c.Channels == 0 {
		return c, fmt.Errorf("%w: channels given by a program config element", ErrUnsupported)
	}
	// The backward-compatible signalling of SBR and PS after the LC configuration.
	if r.left() >= 16 && r.peek(11) == 0x2b7 {
		r.skip(11)
		if objectType() == ObjectSBR && r.bit() {
			ext := ObjectSBR
			_, _ = rate()
			if r.left() >= 12 && r.read(11) == 0x548 && r.bit() {
				ext = ObjectPS
			}
			if !r.overrun {
				return Config{ObjectType: ext, SampleRate: c.SampleRate, Channels: c.Channels, RateIndex: c.RateIndex},
					fmt.Errorf("%w: profile %s (only AAC LC is decoded)", ErrUnsupported, Profile(ext))
			}
		}
	}
	if r.overrun {
		return c, fmt.Errorf("%w: AudioSpecificConfig of %d bytes cut short", ErrMalformed, len(asc))
	}
	return c, c.Check()
}

// ADTSHeader is the fixed and variable header of an ADTS frame (ISO/IEC 13818-7 6.2).
type ADTSHeader struct {
	Config
	// FrameLength is the frame's length in bytes, its header included.
	FrameLength int
	// HeaderLength is 7, or 9 with a CRC.
	HeaderLength int
	// Blocks is the number of raw data blocks in the frame (1 to 4).
	Blocks int
}

// SameStream reports whether h and o describe frames of one stream: the same object type,
// sampling rate and channel configuration. A header that differs is a stray sync word or the
// start of another stream.
func (h ADTSHeader) SameStream(o ADTSHeader) bool {
	return h.ObjectType == o.ObjectType && h.SampleRate == o.SampleRate && h.Channels == o.Channels
}

// ADTSHeaderSize is the number of bytes ParseADTSHeader needs.
const ADTSHeaderSize = 7

// IsADTSSync reports whether b starts with an ADTS sync word: twelve ones, then layer 0, which
// MPEG audio layers I to III never have, so that it tells ADTS from MP3.
func IsADTSSync(b []byte) bool { return len(b) >= 2 && b[0] == 0xff && b[1]&0xf6 == 0xf0 }

// ParseADTSHeader reads an ADTS header from the start of b. Errors wrap ErrMalformed when b does
// not start with a valid header, or ErrUnsupported for a valid header of a stream the decoder
// does not decode.
func ParseADTSHeader(b []byte) (ADTSHeader, error) {
	var h ADTSHeader
	if len(b) < ADTSHeaderSize || !IsADTSSync(b) {
		return h, fmt.Errorf("%w: no ADTS sync word", ErrMalformed)
	}
	r := &bitReader{buf: b[:ADTSHeaderSize]}
	r.skip(15)
	protectionAbsent := r.bit()
	h.ObjectType = int(r.read(2)) + 1
	h.RateIndex = int(r.read(4))
	r.skip(1)
	h.Channels = int(r.read(3))
	r.skip(4)
	h.FrameLength = int(r.read(13))
	r.skip(11)
	h.Blocks = int(r.read(2)) + 1
	h.HeaderLength = 7
	if !protectionAbsent {
		h.HeaderLength = 9
	}
	if h.RateIndex >= len(sampleRates) {
		return h, fmt.Errorf("%w: ADTS sampling frequency index %d", ErrMalformed, h.RateIndex)
	}
	h.SampleRate = sampleRates[h.RateIndex]
	if h.FrameLength < h.HeaderLength {
		return h, fmt.Errorf("%w: ADTS frame of %d bytes", ErrMalformed, h.FrameLength)
	}
	return h, h.Check()
}
