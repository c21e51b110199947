package mp3enc

import "io"

// writeInfo writes the Info frame: a frame of silence whose main data holds the Xing fields
// (frames, bytes, table of contents, quality) and a LAME tag with the encoder delay and the
// padding, which decoders use to drop them.
func (e *Encoder) writeInfo() error {
	// The frame must hold the tag: at low bit rates it takes the lowest higher one that does
	// (decoders read the Info frame's own header; its audio is silence).
	off := 4 + e.sideInfoBytes()
	rateIdx, size := e.rateIdx, 0
	for ; rateIdx < len(e.v.bitRates); rateIdx++ {
		if size = e.v.slots * e.v.bitRates[rateIdx] / e.o.SampleRate; size >= off+156 {
			break
		}
	}
	frame := make([]byte, size)
	h := e.header(false)
	h[2] = byte(rateIdx<<4) | h[2]&0x0F
	copy(frame, h[:])
	copy(frame[off:], "Info")
	put32 := func(at int, v uint32) {
		frame[at], frame[at+1], frame[at+2], frame[at+3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
	}
	put32(off+4, 0x0F) // frames, bytes, TOC and quality present
	put32(off+8, uint32(e.frames))
	e.size = e.streamBytes(size)
	put32(off+12, uint32(e.size))
	for i := range 100 { // a linear table of contents: CBR
		frame[off+16+i] = byte(i * 256 / 100)
	}
	put32(off+116, 0) // quality
	tag := off + 120
	copy(frame[tag:], "LAME3.100")
	frame[tag+9] = 0x00 // revision 0, VBR method unknown (CBR)
	frame[tag+10] = 0   // lowpass
	delay := encoderDelay
	total := int64(e.frames) * int64(e.frameLen)
	// Decoders drop delay+529 samples at the start and padding-529 at the end of the frames.
	padding := int(total - e.total - encoderDelay)
	frame[tag+21] = byte(delay >> 4)
	frame[tag+22] = byte(delay<<4) | byte(padding>>8)
	frame[tag+23] = byte(padding)
	frame[tag+24] = 0 // misc
	frame[tag+25] = 0 // mp3 gain
	// bitrate field: CBR
	frame[tag+20] = byte(min(e.o.BitRate, 255))
	crc := crc16(frame[:tag+34])
	frame[tag+34], frame[tag+35] = byte(crc>>8), byte(crc)
	_, err := e.w.Write(frame)
	return err
}

// streamBytes is the size of the whole stream, the Info frame of infoSize included; it replays
// the padding pattern the frames will follow without changing the encoder's.
func (e *Encoder) streamBytes(infoSize int) int64 {
	n := int64(infoSize)
	rest := e.slotRest
	num := e.v.slots * e.o.BitRate
	for range e.frames {
		size := num / e.o.SampleRate
		rest += num % e.o.SampleRate
		if rest >= e.o.SampleRate {
			rest -= e.o.SampleRate
			size++
		}
		n += int64(size)
	}
	return n
}

// crc16 is the CRC-16 (polynomial 0x8005, reflected) of the LAME tag.
func crc16(b []byte) uint16 {
	var crc uint16
	for _, c := range b {
		crc ^= uint16(c)
		for range 8 {
			if crc&1 != 0 {
				crc = crc>>1 ^ 0xA001
			} else {
				crc >>= 1
			}
		}
	}
	return crc
}

// LayoutPeriod returns after how many samples per channel the stream's frame layout repeats:
// a frame's length times the period of its padding slots. Two stretches of input that many
// samples apart (or a multiple) start frames at the same place and get frames of the same
// size, so the encoder, whose memory is a few granules, codes equal stretches alike.
func LayoutPeriod(o Options) (int, error) {
	e, err := New(io.Discard, o, 0)
	if err != nil {
		return 0, err
	}
	rest := e.v.slots * o.BitRate % o.SampleRate
	slots := 1
	if rest != 0 {
		slots = o.SampleRate / gcd(rest, o.SampleRate)
	}
	return e.frameLen * slots, nil
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
