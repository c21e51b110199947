package mp3dec

// Layer III decoding runs in two stages that meet here. The bitstream stage (bitstream.go and
// the files it owns: side information, bit reservoir, scale factors, Huffman decoding,
// requantization, stereo processing, reordering of short blocks) turns a frame into spectra.
// The filter bank (filterbank.go: alias reduction, IMDCT with overlap-add, frequency inversion,
// polyphase synthesis) turns spectra into samples.
//
// The bitstream stage provides, in bitstream.go:
//
//	type bitstream struct{ ... }           // state across frames: the bit reservoir
//	func (b *bitstream) decode(frame []byte, h mpegaudio.Header, out *frameSpectra) error
//	func (b *bitstream) reset()            // forget the reservoir, as after a gap in the stream

// spectrum is one granule of one channel in the frequency domain, ready for the filter bank.
type spectrum struct {
	// xr holds the 576 requantized, stereo-processed spectral values, scaled as the standard's
	// xr (a full-scale sine gives samples of magnitude 1 after synthesis). For long blocks, xr[18*sb+i]
	// is line i of subband sb. For short blocks, after reordering, xr[18*sb+6*w+i] is line 6*sb+i
	// of window w (w = 0, 1, 2; i = 0..5). A mixed block has subbands 0 and 1 in the long layout
	// and the others in the short one.
	xr [576]float64
	// blockType is 0 (normal), 1 (start), 2 (short) or 3 (stop).
	blockType int
	// mixed says that a short block (blockType 2) has its two lowest subbands as long blocks.
	mixed bool
	// lines is one past the index of the last non-zero value of xr (0 when all are zero), so
	// the filter bank may skip the subbands above it.
	lines int
}

// frameSpectra is one frame's spectra.
type frameSpectra struct {
	// granules is 2 for MPEG-1 and 1 for MPEG-2 and 2.5 (576 samples per granule per channel).
	granules int
	// channels is 1 for mono and 2 for every stereo mode.
	channels int
	// spectra are indexed [granule][channel].
	spectra [2][2]spectrum
}
