// Package blockref holds decoded audio to a reference decoder's output summarised as block
// statistics: for each block of BlockSize samples and each channel, the RMS and the peak. The
// references are ffmpeg's decodes, written by the blockstats command of
// internal/mp3dec/testdata; the decoder tests of internal/mp3dec and internal/aacdec, and the
// edit-list test of internal/audio, compare with them.
package blockref

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
)

// BlockSize is the number of samples per channel a block summarises.
const BlockSize = 576

// Stats are one file's reference.
type Stats struct {
	Channels int `json:"channels"`
	// Samples is the number of samples per channel of the reference decode.
	Samples int `json:"samples"`
	// Trimmed is the number of samples per channel of the reference's ordinary decode, when it
	// differs from the one summarised (MP3 with the encoder's delay and padding cut).
	Trimmed int `json:"trimmed"`
	// Blocks are [RMS, peak] per block and channel; the last block may be partial.
	Blocks [][][2]float64 `json:"blocks"`
}

// Load reads a JSON object of references keyed by file name.
func Load(path string) (map[string]Stats, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var refs map[string]Stats
	if err := json.Unmarshal(raw, &refs); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return refs, nil
}

// Summarise computes the block statistics of interleaved samples.
func Summarise(pcm []float64, channels int) [][][2]float64 {
	samples := len(pcm) / channels
	var out [][][2]float64
	for b := 0; b*BlockSize < samples; b++ {
		block := make([][2]float64, channels)
		n := min(BlockSize, samples-b*BlockSize)
		for c := range channels {
			var sq, peak float64
			for i := b * BlockSize; i < b*BlockSize+n; i++ {
				v := pcm[i*channels+c]
				sq += v * v
				peak = math.Max(peak, math.Abs(v))
			}
			block[c] = [2]float64{math.Sqrt(sq / float64(n)), peak}
		}
		out = append(out, block)
	}
	return out
}

// Compare returns an error naming the first block whose RMS or peak is more than tol from the
// reference's. The blocks pcm covers are compared: all of them when pcm is as long as the
// reference, else only its whole blocks (a decode cut shorter, as by an edit list).
func Compare(pcm []float64, channels int, ref Stats, tol float64) error {
	if channels != ref.Channels {
		return fmt.Errorf("%d channels, the reference %d", channels, ref.Channels)
	}
	samples := len(pcm) / channels
	if samples > ref.Samples {
		return fmt.Errorf("%d samples per channel, the reference %d", samples, ref.Samples)
	}
	got := Summarise(pcm, channels)
	if samples < ref.Samples && samples%BlockSize != 0 {
		got = got[:len(got)-1]
	}
	for b, blk := range got {
		for c, v := range blk {
			want := ref.Blocks[b][c]
			if math.Abs(v[0]-want[0]) > tol || math.Abs(v[1]-want[1]) > tol {
				return fmt.Errorf("block %d channel %d: RMS %.7f peak %.7f, the reference %.7f %.7f", b, c, v[0], v[1], want[0], want[1])
			}
		}
	}
	return nil
}
