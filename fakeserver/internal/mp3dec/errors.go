package mp3dec

import "errors"

// Errors of DecodeFrame for frames that decode as silence; the stream stays decodable.
var (
	// ErrReservoir means the frame's main data begins in earlier frames that the decoder has
	// not seen (main_data_begin reaches before the bytes it keeps), as at the start of a stream
	// cut from a longer one.
	ErrReservoir = errors.New("mp3dec: main data begins before the bit reservoir's first byte")
	// ErrCorrupt means the frame's side information or main data is inconsistent: a value out
	// of range, a Huffman code that does not exist, or more bits than part2_3_length allows.
	ErrCorrupt = errors.New("mp3dec: corrupt layer III frame")
)
