package flacdec

import "errors"

// Errors of Decoder.Next. Each returned error wraps one of them, or is io.EOF at the end of the
// stream, or is the underlying reader's error.
var (
	// ErrCorrupt means a frame is malformed: no frame sync where a frame must start, a reserved
	// value, a CRC that does not match, a residual or predictor that does not fit the block, or a
	// stream that ends inside a frame.
	ErrCorrupt = errors.New("flacdec: corrupt FLAC frame")
	// ErrUnsupported means a well-formed frame this decoder does not decode (see the package
	// documentation).
	ErrUnsupported = errors.New("flacdec: unsupported FLAC frame")
)
