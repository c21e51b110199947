// Package mp3dec decodes MPEG audio layer III (MP3): MPEG-1 at 32, 44.1 and 48 kHz, MPEG-2 at
// 16, 22.05 and 24 kHz and MPEG-2.5 at 8, 11.025 and 12 kHz, in every channel mode, into
// float64 samples at full scale 1.0, unclipped, as ffmpeg's float decoder gives them.
//
// It exists because the fake's analysis must keep up with ffmpeg on hour-long podcasts: the
// pure-Go decoder used before (go-mp3) computed the IMDCT and the synthesis filter bank from
// their defining sums and requantized with math.Pow, and cost about 110 s of CPU per hour of
// audio. Here Huffman decoding is table-driven, requantization uses tables, and the IMDCT and
// the synthesis use fast factorisations of their DCTs (see filterbank.go), whose results equal
// the standard's sums up to floating-point rounding; tests hold them to those sums.
//
// A Decoder is fed whole frames in stream order (finding frames in a file is the caller's job;
// internal/mpegaudio parses headers). Choices the standard leaves to a decoder:
//
//   - A frame whose main data is corrupt, or lies in frames the decoder has not seen, decodes
//     as silence (zero spectra through the filter bank, so the previous frame's tail fades out)
//     and DecodeFrame says so with ErrCorrupt or ErrReservoir; the frames after it decode
//     normally. This is how ffmpeg conceals such frames.
//   - Samples are not clipped: a loud encode may exceed full scale, and a meter of true peak
//     must see by how much.
//   - Free-format streams and layers I and II are not decoded (ErrNotFrame).
//
// Where ffmpeg 5.1, the reference the tests hold the decoder to, departs from the standard, the
// decoder follows the standard; the fixtures cover only what the two agree on:
//
//   - A short block adds all 18 overlap samples of the granule before it. ffmpeg drops the last
//     six when they come from a long window, which happens after the two long subbands of a
//     mixed block and after an encoder that switches to short blocks without a start block.
//     mpg123 adds them, as the standard does.
//   - An MPEG-2 intensity-stereo position is illegal when it is the largest value its band's
//     scale-factor length can hold (ISO/IEC 13818-3); such bands get mid/side or nothing.
//     ffmpeg takes every position below 16 as legal and every position from 16 up as illegal.
//
// The one exception is the band table at 24 kHz, where ffmpeg, mpg123 and LAME agree with each
// other against the printed table (see tables.go).
package mp3dec
