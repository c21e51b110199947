package aacheader

import "errors"

// The texts keep the decoder's name: they reach the fake's failure reasons unchanged since the
// header code moved out of the decoder.
var (
	// ErrUnsupported means the stream is valid but uses what the decoder does not decode: a
	// profile other than AAC LC (HE-AAC, HE-AAC v2, Main, LTP, SSR, low delay, USAC), 960-sample
	// frames or more than two channels. The error's text names what.
	ErrUnsupported = errors.New("aacdec: unsupported AAC stream")
	// ErrMalformed means a configuration or an ADTS header is invalid.
	ErrMalformed = errors.New("aacdec: malformed AAC configuration")
)
