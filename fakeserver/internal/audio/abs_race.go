//go:build race

package audio

// abs is math.Abs for finite numbers. Under the race detector it branches on the sign instead,
// because math.Abs's unsafe conversion there becomes a checkptr call per value (abs_norace.go
// has the branch-free one).
func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}
