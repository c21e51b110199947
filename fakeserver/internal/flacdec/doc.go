// Package flacdec decodes the audio frames of a FLAC stream (RFC 9639) into integer samples,
// bit-exactly: lossless decoding has one right answer, which the tests check against ffmpeg's
// decode and the MD5 signature the encoder stored in STREAMINFO.
//
// It exists because the fake's analysis must keep up with ffmpeg on hour-long podcasts: the
// general FLAC library used before (github.com/mewkiz/flac) reads every residual bit by bit
// through an io.Reader and allocates each frame anew, and cost more CPU than ffmpeg's whole
// loudness measurement. Here the bit reader keeps 64 bits in a register and reads a Rice code
// with one count of leading zeros, frames are decoded from a byte buffer into reused slices,
// and the common predictor orders have unrolled loops.
//
// The metadata blocks are the caller's (the fake parses them with github.com/mewkiz/flac/meta):
// a Decoder is given the STREAMINFO values a frame header may refer to and a reader positioned
// at the first frame. What this decoder does not decode, it refuses with ErrUnsupported: 32-bit
// audio in a side-channel stereo mode (its side channel needs 33 bits).
// A frame whose header or audio fails its CRC, or whose structure is impossible, is an error
// wrapping ErrCorrupt; decoding stops there, as it did with the library before.
package flacdec
