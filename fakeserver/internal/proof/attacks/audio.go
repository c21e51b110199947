package main

import (
	"bytes"
	"encoding/binary"
	"math"
)

// flacBlock is the samples per FLAC frame of constantFLAC: the largest block FLAC codes.
const flacBlock = 65535

// constantFLAC is a FLAC of frames frames of 65,535 constant samples at rate on ch channels:
// about 18 bytes a frame whatever the rate (issue 41's file is 3,516 frames at 384 kHz stereo,
// 10 minutes of audio in about 61 KB).
func constantFLAC(frames, rate, ch int) []byte {
	var b bytes.Buffer
	b.WriteString("fLaC")
	b.Write([]byte{0x80, 0, 0, 34}) // the last metadata block: STREAMINFO
	var si [34]byte
	binary.BigEndian.PutUint16(si[0:], flacBlock)
	binary.BigEndian.PutUint16(si[2:], flacBlock)
	binary.BigEndian.PutUint64(si[10:], uint64(rate)<<44|uint64(ch-1)<<41|uint64(15)<<36|uint64(frames*flacBlock))
	b.Write(si[:])
	for n := range frames {
		h := []byte{0xFF, 0xF8, 0x70, byte(ch-1)<<4 | 0x08} // rate from STREAMINFO, 16 bits
		switch {                                            // the frame number, UTF-8 coded
		case n < 0x80:
			h = append(h, byte(n))
		case n < 0x800:
			h = append(h, 0xC0|byte(n>>6), 0x80|byte(n&0x3F))
		default:
			h = append(h, 0xE0|byte(n>>12), 0x80|byte(n>>6&0x3F), 0x80|byte(n&0x3F))
		}
		bs := uint16(flacBlock - 1)
		h = append(h, byte(bs>>8), byte(bs))
		h = append(h, crc8(h))
		for range ch {
			h = append(h, 0x00, 0x12, 0x34) // a constant subframe
		}
		c := crc16(h)
		b.Write(append(h, byte(c>>8), byte(c)))
	}
	return b.Bytes()
}

// crc8 is FLAC's frame-header CRC (polynomial 0x07).
func crc8(p []byte) (c byte) {
	for _, x := range p {
		c ^= x
		for range 8 {
			c = c<<1 ^ byte(0x07*int(c>>7))
		}
	}
	return c
}

// crc16 is FLAC's frame CRC (polynomial 0x8005).
func crc16(p []byte) (c uint16) {
	for _, x := range p {
		c ^= uint16(x) << 8
		for range 8 {
			c = c<<1 ^ uint16(0x8005*int(c>>15))
		}
	}
	return c
}

// sineWAV is a 16-bit PCM WAV of seconds of a 1 kHz tone at -20 dBFS on ch channels.
func sineWAV(seconds float64, rate, ch int) []byte {
	frames := int(seconds * float64(rate))
	data := frames * ch * 2
	var b bytes.Buffer
	b.WriteString("RIFF")
	_ = binary.Write(&b, binary.LittleEndian, uint32(36+data))
	b.WriteString("WAVEfmt ")
	for _, v := range []any{uint32(16), uint16(1), uint16(ch), uint32(rate), uint32(rate * ch * 2), uint16(ch * 2), uint16(16)} {
		_ = binary.Write(&b, binary.LittleEndian, v)
	}
	b.WriteString("data")
	_ = binary.Write(&b, binary.LittleEndian, uint32(data))
	amp := 0.1 * math.MaxInt16
	for i := range frames {
		s := int16(amp * math.Sin(2*math.Pi*1000*float64(i)/float64(rate)))
		for range ch {
			_ = binary.Write(&b, binary.LittleEndian, s)
		}
	}
	return b.Bytes()
}
