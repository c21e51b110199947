//go:build !race

package audio

import "math"

// abs is math.Abs: it clears the sign bit without a branch, which matters where signs flip
// unpredictably, as they do in speech (the true-peak scan takes three per output).
func abs(v float64) float64 { return math.Abs(v) }
