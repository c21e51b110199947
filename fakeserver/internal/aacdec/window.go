package aacdec

import "math"

// Window sequences (ISO/IEC 14496-3 Table 4.112).
const (
	onlyLong   = 0
	longStart  = 1
	eightShort = 2
	longStop   = 3
)

// windows holds the rising halves of the sine (shape 0) and Kaiser-Bessel-derived (shape 1)
// windows, long (1024) and short (128); a falling half is a rising one reversed.
type windows struct {
	long, short [2][]float64
}

func newWindows() *windows {
	w := &windows{}
	w.long[0], w.short[0] = sineWindow(2048), sineWindow(256)
	w.long[1], w.short[1] = kbdWindow(2048, 4), kbdWindow(256, 6)
	return w
}

// sineWindow is the first half of sin(π/n · (i + ½)).
func sineWindow(n int) []float64 {
	w := make([]float64, n/2)
	for i := range w {
		w[i] = math.Sin(math.Pi / float64(n) * (float64(i) + 0.5))
	}
	return w
}

// kbdWindow is the first half of the Kaiser-Bessel-derived window of length n and parameter
// alpha (4.6.11.3.2): the square root of the running sum of a Kaiser kernel, normalised.
func kbdWindow(n int, alpha float64) []float64 {
	half := n / 2
	kernel := make([]float64, half+1)
	var total float64
	for i := range kernel {
		r := 2*float64(i)/float64(half) - 1
		kernel[i] = besselI0(math.Pi * alpha * math.Sqrt(1-r*r))
		total += kernel[i]
	}
	w := make([]float64, half)
	var sum float64
	for i := range w {
		sum += kernel[i]
		w[i] = math.Sqrt(sum / total)
	}
	return w
}

// besselI0 is the modified Bessel function of the first kind, order 0, by its power series.
func besselI0(x float64) float64 {
	sum, term := 1.0, 1.0
	q := x * x / 4
	for k := 1; term > sum*1e-17; k++ {
		term *= q / float64(k*k)
		sum += term
	}
	return sum
}
