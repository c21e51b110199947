package audio

import (
	"errors"
	"fmt"
	"time"
)

// Measurement is what Measure finds in a file. Names of codecs and containers follow ffprobe.
type Measurement struct {
	// Duration is exact from the number of frames (rounded to the nanosecond).
	Duration time.Duration
	// Frames is the number of whole frames of audio.
	Frames int64
	// Channels is the number of channels.
	Channels int
	// SampleRate is in frames per second.
	SampleRate int
	// BitsPerSample is the stored size of a PCM sample (WAV, FLAC), or 0 for lossy codecs.
	BitsPerSample int
	// CodecName is ffprobe's codec_name: pcm_u8, pcm_s16le, pcm_s24le, pcm_s32le, pcm_f32le,
	// pcm_f64le, mp3, flac, vorbis, opus or aac.
	CodecName string
	// FormatName is ffprobe's format_name: "wav", "mp3", "flac", "ogg", "aac" (ADTS) or
	// "mov,mp4,m4a,3gp,3g2,mj2".
	FormatName string
	// Size is the number of bytes read from the input (all of it).
	Size int64
	// BitRate is the stream's bit rate in bits per second: sample rate × channels × bits for
	// PCM; for MP3 the frame headers' bit rate (their average for VBR); for FLAC, Vorbis and Opus
	// the stream's bytes over its duration; for AAC the bit rate the file declares, else bytes
	// over duration.
	BitRate int64
	// IntegratedLUFS is the integrated loudness (ITU-R BS.1770-4), or −Inf for silence.
	IntegratedLUFS float64
	// SamplePeakDB is the sample peak in dBFS, or −Inf for silence.
	SamplePeakDB float64
	// TruePeakDB is the true peak in dBTP (4× oversampled), or −Inf for silence.
	TruePeakDB float64
	// LoudnessRange is the EBU Tech 3342 loudness range in LU.
	LoudnessRange float64
	// ShortTerm is the short-term loudness once a second (2 bytes a second).
	ShortTerm ShortTermSeries
	// Title is the title tag (Tags.Title), or "".
	Title string
	// SignalStats are silences, clipping, noise floor, DC offset, channel levels and correlation.
	SignalStats
	// Tags are the file's metadata tags (ID3v1/v2, Vorbis comments, MP4 ilst, RIFF INFO).
	Tags Tags
	// Cover is the embedded cover image, or nil when there is none (or it is too large).
	Cover *Cover
	// ConcealedFrames counts MP3 and AAC frames whose data was corrupt or missing (at the start
	// of a cut MP3 stream) and that were decoded as silence, as ffmpeg conceals them; 0 for
	// other formats.
	ConcealedFrames int64
}

// measureWAV measures a WAV file. A file whose data chunk is cut short is measured as far as it
// goes. Errors wrap ErrNotWAV, ErrUnsupportedFormat or ErrMalformedWAV and, for Measure's
// callers, ErrUnsupportedCodec or ErrMalformed.
func measureWAV(in *source) (Measurement, error) {
	wr, err := NewWAVReader(in)
	if err != nil {
		return Measurement{}, wavErr(err)
	}
	f := wr.Format()
	res, err := measurePCM(in, f.SampleRate, f.Channels, ChannelWeights(f.Channels, f.ChannelMask), wr.Read)
	if err != nil {
		return Measurement{}, fmt.Errorf("audio: reading WAV data: %w", wavErr(err))
	}
	if err := in.drain(); err != nil {
		return Measurement{}, err
	}
	tags, cover := wr.tags()
	return Measurement{
		Duration:       framesDuration(res.Frames, f.SampleRate),
		Frames:         res.Frames,
		Channels:       f.Channels,
		SampleRate:     f.SampleRate,
		BitsPerSample:  f.BitsPerSample,
		CodecName:      f.CodecName,
		FormatName:     "wav",
		Size:           in.size(),
		BitRate:        int64(f.SampleRate) * int64(f.Channels) * int64(f.BitsPerSample),
		IntegratedLUFS: res.IntegratedLUFS,
		SamplePeakDB:   res.SamplePeakDB,
		TruePeakDB:     res.TruePeakDB,
		LoudnessRange:  res.LoudnessRange,
		ShortTerm:      res.ShortTerm,
		SignalStats:    res.SignalStats,
		Title:          tags.Title,
		Tags:           tags,
		Cover:          cover,
	}, nil
}

// wavErr adds the format-independent sentinel to a WAV reader's error.
func wavErr(err error) error {
	switch {
	case errors.Is(err, ErrNotWAV):
		return fmt.Errorf("%w: %w", ErrUnknownFormat, err)
	case errors.Is(err, ErrUnsupportedFormat):
		return fmt.Errorf("%w: %w", ErrUnsupportedCodec, err)
	case errors.Is(err, ErrMalformedWAV):
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	return err
}

// fill copies a meter's result into m.
func (m *Measurement) fill(res MeterResult) {
	m.Frames = res.Frames
	m.Duration = framesDuration(res.Frames, m.SampleRate)
	m.IntegratedLUFS = res.IntegratedLUFS
	m.SamplePeakDB = res.SamplePeakDB
	m.TruePeakDB = res.TruePeakDB
	m.LoudnessRange = res.LoudnessRange
	m.ShortTerm = res.ShortTerm
	m.SignalStats = res.SignalStats
}

// framesDuration is frames/rate seconds, rounded to the nanosecond without overflow.
func framesDuration(frames int64, rate int) time.Duration {
	r := int64(rate)
	sec := frames / r
	rem := frames % r
	return time.Duration(sec)*time.Second + time.Duration((rem*int64(time.Second)+r/2)/r)
}
