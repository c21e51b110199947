package fakeserver

import (
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/audio"
)

// AudioSpec describes a WAV file for SynthesizeWAV: synthetic speech that the fake (and any
// BS.1770 meter) measures at the loudness asked for.
type AudioSpec struct {
	// Duration is the audio's length, from 0.5 s to 3 hours.
	Duration time.Duration
	// SampleRate is in Hz (default 44100).
	SampleRate int
	// Channels is 1 or 2 (default 1).
	Channels int
	// LoudnessLUFS is the integrated loudness, from −40 to −6 LUFS (default −16).
	LoudnessLUFS *float64
	// Title, when not empty, is written as the file's title tag, so that a report of it is named
	// by it.
	Title string
}

// SynthesizeWAV returns a 16-bit PCM WAV file as spec describes, for tests that upload audio
// (client.Upload, or a PUT to an upload URL). The same spec gives the same bytes.
func SynthesizeWAV(spec AudioSpec) ([]byte, error) {
	s := audio.SynthSpec{
		DurationSeconds: spec.Duration.Seconds(),
		SampleRate:      spec.SampleRate,
		Channels:        spec.Channels,
		Title:           spec.Title,
	}
	if spec.LoudnessLUFS != nil {
		s.LoudnessLUFS = *spec.LoudnessLUFS
	}
	return audio.Synthesize(s)
}
