package audio

import (
	"errors"
	"fmt"
	"io"
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
	// BitsPerSample is the stored size of a sample.
	BitsPerSample int
	// CodecName is ffprobe's codec_name: pcm_u8, pcm_s16le, pcm_s24le, pcm_s32le, pcm_f32le or
	// pcm_f64le.
	CodecName string
	// FormatName is ffprobe's format_name: "wav".
	FormatName string
	// Size is the number of bytes read from the input (all of it).
	Size int64
	// BitRate is the codec's bit rate in bits per second (sample rate × channels × bits).
	BitRate int64
	// IntegratedLUFS is the integrated loudness (ITU-R BS.1770-4), or −Inf for silence.
	IntegratedLUFS float64
	// SamplePeakDB is the sample peak in dBFS, or −Inf for silence.
	SamplePeakDB float64
	// TruePeakDB is the true peak in dBTP (4× oversampled), or −Inf for silence.
	TruePeakDB float64
	// LoudnessRange is the EBU Tech 3342 loudness range in LU.
	LoudnessRange float64
	// Title is the LIST/INFO INAM tag, or "".
	Title string
	// SignalStats are silences, clipping, noise floor, DC offset, channel levels and correlation.
	SignalStats
}

// measureBlock is how many frames Measure decodes at a time.
const measureBlock = 4096

// Measure reads a WAV file from r to its end and measures it, in memory that does not depend on
// the file's length. A file whose data chunk is cut short is measured as far as it goes. Errors
// wrap ErrNotWAV, ErrUnsupportedFormat, ErrMalformedWAV or the reader's own error.
func Measure(r io.Reader) (Measurement, error) {
	wr, err := NewWAVReader(r)
	if err != nil {
		return Measurement{}, err
	}
	f := wr.Format()
	m, err := NewMeter(f.SampleRate, f.Channels)
	if err != nil {
		return Measurement{}, fmt.Errorf("%w: %w", ErrUnsupportedFormat, err)
	}
	if err := m.SetChannelWeights(ChannelWeights(f.Channels, f.ChannelMask)); err != nil {
		return Measurement{}, fmt.Errorf("%w: %w", ErrUnsupportedFormat, err)
	}
	buf := make([]float64, measureBlock*f.Channels)
	for {
		n, err := wr.Read(buf)
		m.Process(buf[:n])
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Measurement{}, fmt.Errorf("audio: reading WAV data: %w", err)
		}
	}
	res := m.Result()
	return Measurement{
		Duration:       framesDuration(res.Frames, f.SampleRate),
		Frames:         res.Frames,
		Channels:       f.Channels,
		SampleRate:     f.SampleRate,
		BitsPerSample:  f.BitsPerSample,
		CodecName:      f.CodecName,
		FormatName:     "wav",
		Size:           wr.BytesRead(),
		BitRate:        int64(f.SampleRate) * int64(f.Channels) * int64(f.BitsPerSample),
		IntegratedLUFS: res.IntegratedLUFS,
		SamplePeakDB:   res.SamplePeakDB,
		TruePeakDB:     res.TruePeakDB,
		LoudnessRange:  res.LoudnessRange,
		Title:          wr.Title(),
		SignalStats:    res.SignalStats,
	}, nil
}

// framesDuration is frames/rate seconds, rounded to the nanosecond without overflow.
func framesDuration(frames int64, rate int) time.Duration {
	r := int64(rate)
	sec := frames / r
	rem := frames % r
	return time.Duration(sec)*time.Second + time.Duration((rem*int64(time.Second)+r/2)/r)
}
