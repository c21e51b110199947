package aacdec

import (
	"errors"

	"github.com/podqa/podqa-go/internal/aacheader"
)

var (
	// ErrUnsupported means the stream is valid but uses what this decoder does not decode: a
	// profile other than AAC LC (HE-AAC, HE-AAC v2, Main, LTP, SSR, low delay, USAC), 960-sample
	// frames or more than two channels. The error's text names what.
	ErrUnsupported = aacheader.ErrUnsupported
	// ErrMalformed means a configuration or an ADTS header is invalid.
	ErrMalformed = aacheader.ErrMalformed
	// ErrCorrupt means a frame's data is invalid; Decode then gives a frame of silence.
	ErrCorrupt = errors.New("aacdec: corrupt AAC frame")
)
