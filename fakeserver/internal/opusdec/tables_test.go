package opusdec

import (
	"math"
	"testing"
)

// log2Frac is log2(v) in 1/2^frac units, rounded up: how the reference implementation sizes
// its pulse cache.
func log2Frac(v uint32, frac int) int {
	l := ilog(v)
	if v&(v-1) == 0 {
		return (l - 1) << uint(frac)
	}
	if l > 16 {
		v = ((v - 1) >> uint(l-16)) + 1
	} else {
		v <<= uint(16 - l)
	}
	l = (l - 1) << uint(frac)
	for {
		b := int(v >> 16)
		l += b << uint(frac)
		v = (v + uint32(b)) >> uint(b)
		v = (v*v + 0x7FFF) >> 15
		if frac <= 0 {
			break
		}
		frac--
	}
	if v > 0x8000 {
		l++
	}
	return l
}

// TestPulseCacheMatchesCodebookSizes recomputes every cost in cacheBits from the number of
// PVQ codewords V(N,K) = U(N,K)+U(N,K+1) of the band size the row serves.
func TestPulseCacheMatchesCodebookSizes(t *testing.T) {
	t.Parallel()
	m := sharedMode()
	seen := map[int]bool{}
	for lm := -1; lm <= maxLM; lm++ {
		for band := range nbBands {
			ci := int(cacheIndex[(lm+1)*nbBands+band])
			n := (eBands[band+1] - eBands[band]) << uint(lm+1) >> 1
			if n == 0 {
				if ci != -1 {
					t.Errorf("LM %d band %d: empty band with a cache row", lm, band)
				}
				continue
			}
			if ci < 0 || ci >= len(cacheBits) {
				t.Fatalf("LM %d band %d: cache row %d out of range", lm, band, ci)
			}
			if seen[ci] {
				continue
			}
			seen[ci] = true
			maxK := int(cacheBits[ci])
			if maxK > maxPseudo || ci+maxK >= len(cacheBits) {
				t.Fatalf("row %d: %d pseudo-pulses", ci, maxK)
			}
			for j := 1; j <= maxK; j++ {
				k := getPulses(j)
				v := uint64(m.u(n, k)) + uint64(m.u(n, k+1))
				if v >= 1<<32 {
					t.Fatalf("N=%d K=%d: V does not fit 32 bits", n, k)
				}
				want := log2Frac(uint32(v), bitRes) - 1
				if got := int(cacheBits[ci+j]); got != want {
					t.Errorf("N=%d K=%d: cacheBits %d, computed %d", n, k, got, want)
				}
			}
		}
	}
	if len(seen) == 0 {
		t.Fatal("no cache rows checked")
	}
}

func TestTableShapes(t *testing.T) {
	t.Parallel()
	for i := 1; i < len(eBands); i++ {
		if eBands[i] <= eBands[i-1] {
			t.Errorf("eBands not increasing at %d", i)
		}
	}
	if eBands[nbBands]<<maxLM != 800 {
		t.Errorf("bands end at %d bins of 20 ms, want 800 (20 kHz)", eBands[nbBands]<<maxLM)
	}
	for q := 1; q < len(bandAllocation); q++ {
		for b := range nbBands {
			if bandAllocation[q][b] < bandAllocation[q-1][b] {
				t.Errorf("allocation step %d band %d decreases", q, b)
			}
		}
	}
	for lm := range eProbModel {
		for intra := range eProbModel[lm] {
			for i := 0; i < 42; i += 2 {
				if p := eProbModel[lm][intra][i]; p == 0 {
					t.Errorf("e_prob_model[%d][%d] band %d: zero probability of 0", lm, intra, i/2)
				}
			}
		}
	}
	for _, tab := range [][]uint8{smallEnergyICDF, tapsetICDF, spreadICDF, trimICDF} {
		for i := 1; i < len(tab); i++ {
			if tab[i] >= tab[i-1] {
				t.Errorf("inverse CDF %v not decreasing", tab)
			}
		}
		if tab[len(tab)-1] != 0 {
			t.Errorf("inverse CDF %v does not end at 0", tab)
		}
	}
	for i, v := range logN {
		w := eBands[i+1] - eBands[i]
		if want := log2Frac(uint32(w), bitRes); v != want {
			t.Errorf("logN[%d] = %d, want %d", i, v, want)
		}
	}
	for i, v := range log2FracTable { // the cost of a uniform choice among i+1 values
		if want := int(math.Ceil(8 * math.Log2(float64(i+1)))); v != want {
			t.Errorf("log2FracTable[%d] = %d, want %d", i, v, want)
		}
	}
	// The window is power complementary: w[i]² + w[overlap-1-i]² = 1.
	w := &sharedMode().window
	for i := range overlap {
		if s := float64(w[i])*float64(w[i]) + float64(w[overlap-1-i])*float64(w[overlap-1-i]); math.Abs(s-1) > 1e-6 {
			t.Errorf("window %d: w² + mirror² = %g", i, s)
		}
	}
}

// TestFFTMatchesDFT checks every FFT size the IMDCT uses against a direct DFT.
func TestFFTMatchesDFT(t *testing.T) {
	t.Parallel()
	for _, n := range []int{60, 120, 240, 480} {
		pl := newFFTPlan(n)
		x := make([]complex64, n)
		for i := range x {
			x[i] = complex(float32(math.Sin(float64(i*i)*0.37)), float32(math.Cos(float64(i)*1.3+0.2)))
		}
		want := make([]complex128, n)
		for k := range n {
			var s complex128
			for j := range n {
				a := -2 * math.Pi * float64(j*k) / float64(n)
				s += complex128(x[j]) * complex(math.Cos(a), math.Sin(a))
			}
			want[k] = s
		}
		pl.transform(x, make([]complex64, n))
		for k := range n {
			if d := complex128(x[k]) - want[k]; math.Hypot(real(d), imag(d)) > 1e-3 {
				t.Fatalf("n=%d bin %d: got %v want %v", n, k, x[k], want[k])
			}
		}
	}
}
