package vorbisdec

import "errors"

// Errors of the decoder. Each error it returns wraps one of them.
var (
	// ErrCorrupt means a header or an audio packet breaks the Vorbis I specification: a wrong
	// signature, a reserved value, an index past its table, a Huffman tree with too many codes,
	// an audio packet of a mode the setup header does not define.
	ErrCorrupt = errors.New("vorbisdec: corrupt Vorbis stream")
	// ErrTooLarge means a setup header that is valid but asks for more work or memory than the
	// decoder allows (see MaxCodebookEntries and MaxVQValues); no encoder writes such headers.
	ErrTooLarge = errors.New("vorbisdec: Vorbis setup header over the decoder's bounds")
)
