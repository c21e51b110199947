package probe

// streamInfo is the decoded FLAC STREAMINFO block.
type streamInfo struct {
	rate     uint32
	channels int
	total    uint64
}

// parseStreamInfo decodes a 34-byte STREAMINFO block body.
func parseStreamInfo(si []byte) (streamInfo, error) {
	if len(si) < 34 {
		return streamInfo{}, malformed("flac: truncated STREAMINFO")
	}
	s := streamInfo{
		rate:     uint32(si[10])<<12 | uint32(si[11])<<4 | uint32(si[12])>>4,
		channels: int((si[12]>>1)&7) + 1,
		total:    uint64(si[13]&0x0F)<<32 | uint64(be32(si[14:18])),
	}
	if s.rate == 0 {
		return s, malformed("flac: sample rate 0 in STREAMINFO")
	}
	return s, nil
}

// probeFLAC reads a native FLAC stream whose "fLaC" marker is at the current position.
func probeFLAC(r *reader) (Info, error) {
	b, err := r.peek(4 + 4 + 34)
	if err != nil {
		return Info{}, err
	}
	if len(b) < 8 {
		return Info{}, malformed("flac: truncated metadata block header")
	}
	if typ, n := b[4]&0x7F, int(b[5])<<16|int(b[6])<<8|int(b[7]); typ != 0 || n < 34 {
		return Info{}, malformed("flac: first metadata block is type %d of %d bytes, not STREAMINFO", typ, n)
	}
	s, err := parseStreamInfo(b[8:])
	if err != nil {
		return Info{}, err
	}
	if s.total == 0 {
		return Info{}, malformed("flac: total samples unknown (0 in STREAMINFO)")
	}
	d, err := samplesDuration(s.total, uint64(s.rate))
	if err != nil {
		return Info{}, err
	}
	return Info{Format: "flac", Codec: "flac", Duration: d, SampleRate: int(s.rate), Channels: s.channels}, nil
}
