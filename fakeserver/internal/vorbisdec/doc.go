// Package vorbisdec decodes Vorbis I audio (the Xiph.Org specification) into float samples:
// the identification, comment and setup headers (codebooks with lookup types 1 and 2, floors
// 0 and 1, residues 0, 1 and 2, mappings with channel coupling, modes) and the audio packets
// (floor curves, residue vectors, inverse coupling, IMDCT, windows and overlap-add).
//
// It exists because the fake's analysis must keep up with ffmpeg on hour-long podcasts: the
// library used before (github.com/jfreymuth/vorbis) cost most of the analysis' CPU. Here a
// codeword decodes with one read of a 10-bit table (longer codes by a binary search), vector
// values are expanded once when the setup header is read, the IMDCT runs through a complex FFT
// of a quarter of the block, and a Decoder reuses its buffers, so decoding a packet allocates
// nothing.
//
// The Ogg layer is the caller's: Decode takes one packet at a time and returns the samples it
// completes; the granule positions (the samples to drop at the start and the end) are the
// caller's too. BlockSize gives a packet's block size without decoding it, for that purpose.
//
// Errors wrap ErrCorrupt (a stream that breaks the specification) or ErrTooLarge (a setup
// header beyond MaxCodebookEntries or MaxVQValues, which bound the work and memory of reading
// it). An audio packet that ends early is not an error: as the specification says, what its
// end cuts off is silence.
package vorbisdec
