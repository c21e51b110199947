package mp3dec

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The fast transforms must equal the standard's defining sums.

func TestIMDCT36MatchesDefinition(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		var in [18]float64
		for k := range in {
			in[k] = rng.NormFloat64()
		}
		var got [36]float64
		imdct36(&in, &got)
		for i := range 36 {
			var want float64
			for k := range 18 {
				want += in[k] * math.Cos(math.Pi/72*float64((2*i+1+18)*(2*k+1)))
			}
			if math.Abs(got[i]-want) > 1e-12 {
				t.Fatalf("imdct36 output %d = %v, want %v", i, got[i], want)
			}
		}
	}
}

func TestDCT32MatchesDefinition(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		var in, keep [32]float64
		for k := range in {
			in[k] = rng.NormFloat64()
		}
		keep = in
		var got [32]float64
		dct32(&in, &got)
		for k := range 32 {
			var want float64
			for n := range 32 {
				want += keep[n] * math.Cos(math.Pi*float64((2*n+1)*k)/64)
			}
			if math.Abs(got[k]-want) > 1e-12 {
				t.Fatalf("dct32 output %d = %v, want %v", k, got[k], want)
			}
		}
	}
}

func TestShortIMDCTMatchesDefinition(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	var in [18]float64
	for k := range in {
		in[k] = rng.NormFloat64()
	}
	var got [36]float64
	shortIMDCT(&in, &got)
	var want [36]float64
	for w := range 3 {
		for i := range 12 {
			var s float64
			for k := range 6 {
				s += in[6*w+k] * math.Cos(math.Pi/24*float64((2*i+1+6)*(2*k+1)))
			}
			want[6+6*w+i] += s * math.Sin(math.Pi/12*(float64(i)+0.5))
		}
	}
	for i := range 36 {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("short IMDCT output %d = %v, want %v", i, got[i], want[i])
		}
	}
}

// fbRefSynthesis is the standard's synthesis (ISO/IEC 11172-3 §2.4.3.2, Figure A.2) as
// written: a 1024-value FIFO V, matrixing, U built from V, windowing by D and summing.
type fbRefSynthesis struct{ v [1024]float64 }

func (r *fbRefSynthesis) step(s [32]float64) [32]float64 {
	copy(r.v[64:], r.v[:960])
	for i := range 64 {
		var sum float64
		for k := range 32 {
			sum += math.Cos(float64((16+i)*(2*k+1))*math.Pi/64) * s[k]
		}
		r.v[i] = sum
	}
	var u [512]float64
	for i := range 8 {
		for j := range 32 {
			u[64*i+j] = r.v[128*i+j]
			u[64*i+32+j] = r.v[128*i+96+j]
		}
	}
	d := synthesisWindow()
	var out [32]float64
	for j := range 32 {
		for i := range 16 {
			out[j] += u[32*i+j] * d[32*i+j]
		}
	}
	return out
}

func TestSynthesisMatchesReference(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	var fb filterBank
	var ref fbRefSynthesis
	out := make([]float64, 64)
	for step := range 40 {
		var s [32]float64
		for k := range s {
			s[k] = rng.NormFloat64()
		}
		want := ref.step(s)
		in := s
		fb.synthesize(&in, out[1:], 2) // stride 2, odd slots
		for j := range 32 {
			if got := out[1+2*j]; math.Abs(got-want[j]) > 1e-12 {
				t.Fatalf("step %d sample %d = %v, want %v", step, j, got, want[j])
			}
		}
	}
}

// TestSynthesisWindowSymmetry checks the window against properties of Table B.3 that a
// mistyped value would break: D is zero at 0, largest at 256, and its first half has the
// sign pattern of the standard (blocks of 64 alternate in sign around a smooth prototype).
func TestSynthesisWindowSymmetry(t *testing.T) {
	t.Parallel()
	d := synthesisWindow()
	if d[0] != 0 || d[256] != 75038.0/65536 {
		t.Fatalf("D[0] = %v, D[256] = %v", d[0], d[256])
	}
	for i := range d {
		if math.Abs(d[i]) > d[256] {
			t.Fatalf("|D[%d]| = %v exceeds D[256]", i, d[i])
		}
	}
	// The prototype h[i] = D[i]·(−1)^⌊i/64⌋ is smooth: no jump larger than 0.04 between
	// neighbours (its steepest slope is about 0.037 per sample).
	h := func(i int) float64 {
		if (i/64)%2 == 1 {
			return -d[i]
		}
		return d[i]
	}
	for i := 1; i < 512; i++ {
		if i%64 == 0 {
			continue
		}
		if math.Abs(h(i)-h(i-1)) > 0.04 {
			t.Fatalf("window prototype jumps between %d and %d: %v, %v", i-1, i, h(i-1), h(i))
		}
	}
}

// fbRefGranule is the standard's hybrid filter bank for one granule, written from the
// definitions: alias reduction, IMDCT sums, block windows, overlap-add, frequency inversion and
// the reference synthesis.
type fbRefGranule struct {
	overlap [576]float64
	syn     fbRefSynthesis
}

func (r *fbRefGranule) run(s spectrum) []float64 {
	xr := s.xr
	longBands := 32
	if s.blockType == 2 {
		longBands = 0
		if s.mixed {
			longBands = 2
		}
	}
	cs := [8]float64{}
	ca := [8]float64{}
	for i, c := range []float64{-0.6, -0.535, -0.33, -0.185, -0.095, -0.041, -0.0142, -0.0037} {
		cs[i], ca[i] = 1/math.Sqrt(1+c*c), c/math.Sqrt(1+c*c)
	}
	for sb := 1; sb < longBands; sb++ {
		for i := range 8 {
			a, b := xr[18*sb-1-i], xr[18*sb+i]
			xr[18*sb-1-i] = a*cs[i] - b*ca[i]
			xr[18*sb+i] = b*cs[i] + a*ca[i]
		}
	}
	win := func(bt, i int) float64 {
		sin36 := math.Sin(math.Pi / 36 * (float64(i) + 0.5))
		switch bt {
		case 1:
			switch {
			case i < 18:
				return sin36
			case i < 24:
				return 1
			case i < 30:
				return math.Sin(math.Pi / 12 * (float64(i-18) + 0.5))
			}
			return 0
		case 3:
			switch {
			case i < 6:
				return 0
			case i < 12:
				return math.Sin(math.Pi / 12 * (float64(i-6) + 0.5))
			case i < 18:
				return 1
			}
		}
		return sin36
	}
	var sub [576]float64
	for sb := range 32 {
		var z [36]float64
		if sb < longBands {
			bt := s.blockType
			if bt == 2 {
				bt = 0
			}
			for i := range 36 {
				var sum float64
				for k := range 18 {
					sum += xr[18*sb+k] * math.Cos(math.Pi/72*float64((2*i+19)*(2*k+1)))
				}
				z[i] = sum * win(bt, i)
			}
		} else {
			for w := range 3 {
				for i := range 12 {
					var sum float64
					for k := range 6 {
						sum += xr[18*sb+6*w+k] * math.Cos(math.Pi/24*float64((2*i+7)*(2*k+1)))
					}
					z[6+6*w+i] += sum * math.Sin(math.Pi/12*(float64(i)+0.5))
				}
			}
		}
		for i := range 18 {
			sub[18*sb+i] = z[i] + r.overlap[18*sb+i]
			r.overlap[18*sb+i] = z[18+i]
			if sb%2 == 1 && i%2 == 1 {
				sub[18*sb+i] = -sub[18*sb+i]
			}
		}
	}
	out := make([]float64, 0, 576)
	for t := range 18 {
		var s [32]float64
		for sb := range 32 {
			s[sb] = sub[18*sb+t]
		}
		o := r.syn.step(s)
		out = append(out, o[:]...)
	}
	return out
}

func TestGranuleMatchesReference(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 10))
	// A sequence of granules as an encoder switches windows: normal, start, short, stop,
	// mixed, normal, with spectra that end at various lines; then a short block straight after
	// a normal one and after a mixed one, where all 18 overlap samples of the long window
	// count (ffmpeg drops the last six; see doc.go).
	blocks := []struct {
		blockType int
		mixed     bool
		lines     int
	}{{0, false, 576}, {1, false, 400}, {2, false, 300}, {3, false, 576}, {0, false, 17},
		{1, false, 200}, {2, true, 576}, {3, false, 100}, {0, false, 0}, {0, false, 450},
		{2, false, 300}, {2, true, 500}, {2, false, 400}, {3, false, 576}}
	var fb filterBank
	var ref fbRefGranule
	for _, stereo := range []bool{false, true} {
		fb.reset()
		ref = fbRefGranule{}
		for n, b := range blocks {
			var s spectrum
			s.blockType, s.mixed, s.lines = b.blockType, b.mixed, b.lines
			for i := range b.lines {
				s.xr[i] = rng.NormFloat64() * 0.01
			}
			want := ref.run(s)
			stride := 1
			if stereo {
				stride = 2
			}
			out := make([]float64, 576*stride)
			fb.granule(&s, out, stride)
			for i := range 576 {
				if got := out[i*stride]; math.Abs(got-want[i]) > 1e-12 {
					t.Fatalf("stereo %v granule %d (type %d mixed %v) sample %d = %v, want %v", stereo, n, b.blockType, b.mixed, i, got, want[i])
				}
			}
		}
	}
}

// fullVSynthesis is the synthesis step as the decoder computed it before it kept only X: the
// whole V of 64 values per vector, each output summing its 16 products in the order of the
// standard's sum over U. synthesize must give the same values, not merely close ones.
type fullVSynthesis struct {
	ring [32 * 64]float64
	pos  int
}

func (f *fullVSynthesis) step(s *[32]float64) [32]float64 {
	d := synthesisWindow()
	var x [32]float64
	dct32(s, &x)
	f.pos = (f.pos + 15) & 15
	v := f.ring[64*f.pos : 64*f.pos+64]
	for i := range 16 {
		v[i] = x[16+i]
	}
	v[16] = 0
	for i := 17; i < 48; i++ {
		v[i] = -x[48-i]
	}
	for i := 48; i < 64; i++ {
		v[i] = -x[i-48]
	}
	copy(f.ring[64*(f.pos+16):], v)
	w := f.ring[64*f.pos:]
	var out [32]float64
	for j := range 32 {
		var sum float64
		for m := range 8 {
			sum += w[128*m+j] * d[64*m+j]
			sum += w[128*m+96+j] * d[64*m+32+j]
		}
		out[j] = sum
	}
	return out
}

func TestSynthesisEqualsFullV(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 10))
	var fb filterBank
	var ref fullVSynthesis
	out := make([]float64, 32)
	for step := range 100 {
		var s [32]float64
		for k := range s {
			s[k] = rng.NormFloat64()
		}
		want := ref.step(&s)
		in := s
		fb.synthesize(&in, out, 1)
		for j := range 32 {
			if out[j] != want[j] {
				t.Fatalf("step %d sample %d = %v, want exactly %v", step, j, out[j], want[j])
			}
		}
	}
}
