// Package aacdec decodes AAC LC (MPEG-4 audio object type 2, ISO/IEC 14496-3, and MPEG-2 AAC
// LC of ISO/IEC 13818-7) into float64 samples at full scale 1.0, unclipped, as ffmpeg's float
// decoder gives them: mono and stereo, every sampling rate from 7.35 to 96 kHz, long, start,
// eight-short and stop windows with sine and Kaiser-Bessel-derived shapes, mid/side and
// intensity stereo, perceptual noise substitution, temporal noise shaping and pulse data.
//
// It exists because the fake must measure M4A and ADTS podcasts as the service does, in pure
// Go. A Decoder is fed raw data blocks in stream order: the samples of an MP4 track (its
// AudioSpecificConfig from esds goes to ParseConfig) or the payloads of ADTS frames
// (ADTSReader). Finding the blocks and trimming the encoder delay are the caller's job;
// every block decodes to FrameSamples samples per channel, the first one's half made of the
// filter bank's start-up.
//
// Choices the standard leaves to a decoder:
//
//   - Noise substitution fills bands from ffmpeg's generator (a 32-bit linear congruential
//     generator seeded with 0x1f2e3d4c, drawn band by band in bitstream order), so decodes of
//     streams with noise bands compare with ffmpeg's sample by sample. Noise bands are never
//     mid/side processed, as in ffmpeg.
//   - A block whose data is corrupt decodes as silence (a zero spectrum through the filter bank,
//     so the previous block's tail fades out) and Decode says so with ErrCorrupt; the blocks
//     after it decode normally. A concealed block draws no noise, so noise bands after it differ
//     from an intact decode's (with the same energy).
//   - Samples are not clipped: a loud encode may exceed full scale, and a meter of true peak
//     must see by how much.
//   - Dynamic range control data in fill elements is ignored: the output is the programme as
//     encoded.
//
// Refused with ErrUnsupported, the error naming what: HE-AAC and HE-AAC v2 (SBR and parametric
// stereo, signalled in the configuration or found as SBR data in the stream: the decode would be
// half the bandwidth and the wrong rate), AAC Main, LTP and SSR (prediction and gain control),
// 960-sample frames, channel layouts other than mono and stereo or given by a program config
// element, and ADTS frames of several raw data blocks. Within an AAC LC stream, what only
// corruption would put there (prediction or gain control data, coupling channel and program
// config elements, SBR data after the first block) is ErrCorrupt, so one bad block does not
// refuse a stream. None of these comes out of the encoders podcasts use for AAC LC.
package aacdec
