// Package audio is the fake service's audio engine: streaming decoders, a loudness, peak and
// signal-statistics meter, tag and cover readers, and a synthesiser of speech-like WAV files with
// a requested loudness and true peak, optionally tagged.
//
// # Formats
//
// Measure (or MeasureFile with a name hint) recognises a file by its leading bytes and decodes
// it in memory that does not grow with its duration; decoding runs on its own goroutine while
// the meter runs on the caller's. Codec and container names follow ffprobe.
//
//   - WAV (RIFF, RF64, BW64): PCM 8 to 32 bits and IEEE float 32/64 (WAVE_FORMAT_EXTENSIBLE too);
//     tags from an "id3 " chunk and LIST/INFO.
//   - MP3 (MPEG-1, 2 and 2.5 layer III) with our own decoder, internal/mp3dec, which gives
//     float samples as ffmpeg's float decoder does. The channel mode of the first frame decides
//     the channel count (a later frame in the other mode is duplicated or mixed down). A
//     Xing/Info frame is not audio; with a LAME tag the encoder delay plus 529 samples of
//     decoder delay are dropped at the start and the padding less 529 at the end, as ffmpeg
//     does. Segments of 128 frames are decoded in parallel (WithWorkers); each decoder first
//     decodes the frames before its segment (enough to fill the bit reservoir, the last of them
//     leaving the filter bank's memory as a sequential decode would) and drops their output,
//     so the result is the sequential decode. A frame whose data is corrupt or missing is
//     decoded as silence and counted in ConcealedFrames; only a file where no frame decodes
//     fails. Tags: ID3v2 (with CHAP chapters, via github.com/bogem/id3v2) and ID3v1 at the
//     end, met as the stream is read. Layers I and II and free-format streams are
//     ErrUnsupportedCodec.
//   - FLAC: metadata blocks with github.com/mewkiz/flac (Vorbis comments and PICTURE blocks),
//     frames with internal/flacdec, bit-exact.
//   - Ogg Vorbis with internal/vorbisdec (within 105 dB SNR of ffmpeg's decoder): the end is
//     trimmed to the last page's granule position, a first page whose granule position is
//     below its decoded samples drops the difference at the start, and samples are limited to
//     ±1, as the library used before (github.com/jfreymuth/oggvorbis) did. Segments of up to
//     128 packets are decoded in parallel (WithWorkers); each decoder first decodes the last
//     packet before its segment and drops its output, so the samples are bit for bit those of
//     a sequential decode.
//   - Ogg Opus (mono and stereo, mapping family 0) at 48 kHz: the header's pre-skip is
//     dropped, its output gain applied, and each page is cut to its granule position. One
//     decoder serves a whole stream: our own, internal/opusdec (CELT only; it agrees with
//     libopus's float decoder within float rounding, over 135 dB SNR), when every packet is
//     CELT-only with no empty frame and the input is seekable (an upload in memory, a file):
//     ours starts, and on the first packet it does not decode the input goes back to the
//     stream's start and pion decodes the whole stream (a late SILK packet costs a second
//     decoding, and the work ceilings apply to each pass); with more than one
//     worker (WithWorkers), ours decodes segments of 16 s in parallel, each decoder starting
//     400 ms early (the pre-roll of RFC 7845 section 4.6, its output discarded), which gives
//     the serial decode's figures within 1e-5 dB; otherwise (a SILK or
//     hybrid packet anywhere, or an input read once, such as a download)
//     github.com/pion/opus, which agrees with libopus within 60 dB SNR on the fixtures.
//     ffmpeg's own opus decoder (its default) is further from libopus (14 dB SNR on SILK
//     speech, true peak 0.3 dB higher), so the reference figures for Opus are taken with
//     ffmpeg decoding through libopus.
//   - MP4/M4A with AAC LC, decoded by internal/aacdec: boxes are walked forward only and only
//     moov (at most 64 MiB) is held in memory. When the media data comes first, it is copied to
//     an unlinked temporary file until moov says where its samples are; when moov comes first
//     (+faststart), samples are decoded as they stream by. The decode is trimmed by the sound
//     track's edit list: its media time (the encoder's priming) is cut at the start and its
//     duration kept, so Duration is ffprobe's (ffmpeg 5.1's decode keeps the encoder's padding
//     at the end; the loudness differs by nothing measurable). Channels and rate come from the
//     AudioSpecificConfig, tags from ilst, chapters from a Nero chpl box. iTunSMPB gapless
//     comments are not read: ffmpeg's encoder writes edit lists. Fragmented MP4 (moof boxes)
//     is ErrUnsupportedCodec.
//   - ADTS (.aac) with AAC LC, after an ID3v2 tag if one leads it. Nothing is trimmed, as
//     ffmpeg trims nothing (the stream does not say the encoder's delay); the duration is exact,
//     from the number of frames (ffprobe estimates it from the bit rate), and the bit rate is
//     the frames' bytes over it. Sync lost midway is found again, the bytes between skipped.
//   - For AAC, HE-AAC (v1 and v2), Main, LTP, SSR and more than two channels are
//     ErrUnsupportedCodec, naming the profile; a corrupt AAC frame is concealed as silence and
//     counted in ConcealedFrames.//
//
// Vorbis comments (FLAC, Vorbis, Opus) give chapters by the CHAPTERnnn=HH:MM:SS.sss and
// CHAPTERnnnNAME convention, and a cover by METADATA_BLOCK_PICTURE. A cover larger than
// MaxCoverBytes is dropped; JPEG and PNG covers get their width and height. Tags never fail a
// measurement: unreadable tags are ignored. Errors wrap ErrUnknownFormat, ErrMalformed,
// or ErrUnsupportedCodec; a panic inside a decoder library is recovered and
// returned as ErrMalformed.
//
// # Units
//
//   - Samples are float64 in full-scale units: ±1.0 is digital full scale for every source format
//     (integer PCM is divided by 2^(bits−1), unsigned 8-bit is offset by 128 first; float samples
//     are taken as they are and may exceed ±1.0).
//   - Loudness is in LUFS (loudness units relative to full scale, ITU-R BS.1770-4); loudness range
//     is in LU. A 1 kHz sine peaking at −23 dBFS in both channels of a stereo file reads −23 LUFS.
//   - Peaks are in dB relative to full scale: SamplePeakDB in dBFS, TruePeakDB in dBTP.
//   - Durations are exact: the frame count over the sample rate.
//   - Silence (or audio shorter than one 400 ms gating block) has no loudness: integrated loudness
//     is then math.Inf(-1), as are the peaks of digital silence, and the loudness range is 0.
//     JSON has no −Inf; callers decide how to show it (ffmpeg prints −70).
//
// # Measurement choices
//
// The K-weighting pre-filter (high shelf) and the RLB high-pass are designed for the actual sample
// rate with the bilinear transform of their analog prototypes, pre-warped at each filter's corner
// frequency, as libebur128 and ffmpeg do; at 48 kHz this reproduces the coefficients printed in
// BS.1770. Integrated loudness uses 400 ms blocks every 100 ms (sub-block k starts at frame
// round(k·rate/10), so rates such as 11025 Hz work; only complete blocks count), an absolute gate
// at −70 LUFS and a relative gate 10 LU below the loudness of the blocks above the absolute gate.
// Mono is measured as one channel (a mono file reads about 3.01 LU lower than the same signal as
// dual-mono stereo). Channel weights are 1.0 for left, right and centre, 1.41 for surround
// channels and 0 for LFE; without a WAVE_FORMAT_EXTENSIBLE channel mask, channels are taken in the
// 5.1 order L, R, C, LFE, Ls, Rs (channels 7 and 8 are surrounds). See ChannelWeights.
//
// True peak oversamples 4× with a polyphase Kaiser-windowed sinc interpolator (24 taps in each
// fractional phase; the integer phase reproduces the samples exactly). The signal is taken to be
// silent before its first and after its last sample, so an abrupt start or end is measured as such.
//
// Loudness range follows EBU Tech 3342: 3 s short-term blocks every 100 ms, an absolute gate at
// −70 LUFS, a relative gate 20 LU below the mean power of those blocks, and the spread between
// the 10th and 95th percentiles. Block loudness values are kept in 0.01 LU histogram bins that
// also keep exact power sums, so memory does not grow with duration and gating is exact except
// for blocks within 0.01 LU of a relative gate.
//
// Non-finite samples (possible in float WAV files) are measured as 0 and magnitudes are limited to
// 10^9 (180 dBFS), so no input can make the meter overflow.
//
// # Signal statistics
//
// The meter also computes SignalStats in the same pass, in memory that does not depend on the
// duration. Levels there are RMS in dBFS, where full scale is a constant ±1.0 (so a full-scale
// sine reads −3.01 dBFS, as in ffmpeg's astats filter, and not 0 dBFS as in AES17).
//
//   - Windows are the 100 ms sub-blocks of the loudness gate (frames round(k·rate/10) to
//     round((k+1)·rate/10)) plus, at the end, the last partial window if there is one. A window's
//     level is the RMS of all its samples in all channels; it is silent below −60 dBFS
//     (SilenceThresholdDB).
//   - Leading silence runs from the start to the first window that is not silent, trailing
//     silence from the end of the last such window to the end; both are the whole duration when
//     every window is silent. The longest silence is the longest run of silent windows with sound
//     on both sides. Silences are therefore multiples of 100 ms, except a trailing one that
//     includes the partial window.
//   - A clipping run is MinClipRun (3) or more consecutive samples of one channel that are equal
//     and at least ClipLevel (0.99, −0.087 dBFS) in magnitude: the flat tops clipping leaves. A
//     sine that merely peaks at full scale has no equal neighbours there and does not count;
//     clipping followed by a lossy codec, which ripples the flat tops, is usually not caught.
//   - The noise floor is the 10th percentile (nearest rank) of the windows' levels, kept in 0.01 dB
//     histogram bins from −200 to +200 dBFS; windows of digital silence count as −Inf.
//   - The DC offset is each channel's mean sample value, linear in full-scale units.
//   - Channel RMS levels are over the whole signal; the correlation is Pearson's coefficient of the
//     first two channels' samples over the whole signal, NaN for mono or a constant channel.
//
// # Accuracy
//
// TestAccuracyCorpus measures 70 deterministic signals (package internal/corpus: EBU Tech 3341
// cases 1 to 5 shortened, inter-sample-peak tones like cases 15 to 19, Tech 3342-style
// loudness-range steps, tones, gated steps and synthesised speech, mono and stereo, at every rate
// from 8 to 96 kHz, and speech shaped to a true peak) and compares them with ffmpeg 5.1's ebur128
// filter, whose figures testdata/refs/gen.sh regenerates: integrated loudness within 0.1 LU
// (measured: 0.038 LU at most, 11025 Hz gated steps; 0.02 LU elsewhere), true peak within 0.2 dB
// (measured: 0.015 dB) and loudness range within 0.1 LU for signals of 10 s or more (measured:
// 0.004 LU; on shorter signals ffmpeg also counts short-term blocks of the first 3 s, which Tech
// 3342 does not). By ffmpeg's figures the synthesised speech is within 0.02 LU of the loudness
// asked for and within 0.02 dB of a true peak asked for.
//
// # Synthesis
//
// Synthesize and SynthesizeTo write 16-bit PCM WAV files of speech-like sound (formant-filtered
// voiced syllables about four a second, fricatives, pauses between phrases) whose measurement by
// this package hits a requested integrated loudness and, optionally, true peak. A 10 s pattern
// repeats, and the planner computes what the meter will measure of the whole file exactly (the
// first seconds from silence, one period in steady state, the last seconds into silence), so a
// 3-hour file takes no longer to plan than a 15-second one. See SynthesizeTo for the limits.
//
// SynthSpec.Tags and SynthSpec.Cover add an ID3v2.4 tag (title, artist, album, year, comment,
// chapters, front cover) in an "id3 " chunk before the audio, with the text repeated in the
// LIST/INFO chunk, which ffmpeg prefers. Only WAV is written: the one pure-Go MP3 encoder found
// (a port of shine) has had no release or code change since 2023 and no tests, so MP3 synthesis
// is left out rather than built on it.
package audio

// Race-detector builds. The synthesiser's and meter's numeric kernels (their per-sample loops in
// synth.go, speech.go, truepeak.go, filter.go, meter.go, stats.go and wav.go) are marked //go:norace, and
// //go:nocheckptr where math's unsafe bit conversions are inlined into them: they touch only
// their receiver's and arguments' buffers and tables written once at initialisation, so the
// detector's per-access calls would only slow them (most of this package's time under -race)
// without guarding anything. The hand-offs between goroutines (the meter's channel split, the
// decoders' segment workers) happen outside these functions, where the detector still sees
// them, and the planner's own scratch writes in evaluate and shape stay instrumented.
