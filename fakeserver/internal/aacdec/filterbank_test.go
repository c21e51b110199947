package aacdec

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestIMDCTMatchesDefinition holds the fast IMDCT to the standard's sum for both lengths.
func TestIMDCTMatchesDefinition(t *testing.T) {
	t.Parallel()
	for _, n := range []int{256, 2048} {
		rng := rand.New(rand.NewPCG(1, uint64(n)))
		spec := make([]float64, n/2)
		for i := range spec {
			spec[i] = rng.Float64()*2 - 1
		}
		got := make([]float64, n)
		newIMDCT(newIMDCTPlan(n)).transform(got, spec, 1)
		n0 := (float64(n)/2 + 1) / 2
		for i := range n {
			var want float64
			for k, x := range spec {
				want += x * math.Cos(2*math.Pi/float64(n)*(float64(i)+n0)*(float64(k)+0.5))
			}
			want *= 2 / float64(n)
			if math.Abs(got[i]-want) > 1e-12 {
				t.Fatalf("n=%d: x[%d] = %g, the definition gives %g", n, i, got[i], want)
			}
		}
	}
}

// TestPerfectReconstruction transforms a signal with the forward MDCT of the standard's
// windows, frame by frame, through every window sequence and every change of window shape, and
// requires the decoder's synthesis to give the signal back one frame later: any window on the
// wrong side of a change of shape or sequence breaks the cancellation of time-domain aliasing.
func TestPerfectReconstruction(t *testing.T) {
	t.Parallel()
	frames := []struct{ seq, shape int }{
		{onlyLong, 0}, {onlyLong, 1}, {longStart, 0}, {eightShort, 1}, {eightShort, 0}, {longStop, 1},
		{onlyLong, 0}, {longStart, 1}, {eightShort, 1}, {longStop, 0}, {longStart, 0}, {eightShort, 0},
		{longStop, 0}, {onlyLong, 1}, {onlyLong, 1},
	}
	rng := rand.New(rand.NewPCG(7, 7))
	x := make([]float64, (len(frames)+1)*1024)
	for i := range x {
		x[i] = rng.Float64()*2 - 1
	}
	d, err := NewDecoder(Config{ObjectType: objectLC, SampleRate: 44100, Channels: 1, RateIndex: 4})
	if err != nil {
		t.Fatal(err)
	}
	prevShape := 0
	for f, fr := range frames {
		// Frame f covers x[(f-1)·1024, (f+1)·1024), zeros before the start.
		in := make([]float64, 2048)
		for i := range in {
			if j := (f-1)*1024 + i; j >= 0 {
				in[i] = x[j] * 32768
			}
		}
		win := synthesisWindow(d.windows, fr.seq, prevShape, fr.shape)
		ch := &d.own.ch[0]
		ch.info = icsInfo{windowSequence: fr.seq, windowShape: fr.shape, numWindows: 1}
		if fr.seq == eightShort {
			for w := range 8 {
				seg := make([]float64, 256)
				for i := range seg {
					seg[i] = in[448+w*128+i] * win[w][i]
				}
				mdct(ch.spec[w*128:w*128+128], seg)
			}
		} else {
			seg := make([]float64, 2048)
			for i := range seg {
				seg[i] = in[i] * win[0][i]
			}
			mdct(ch.spec[:1024], seg)
		}
		d.synthesize(ch, 0, &d.syn[0].out)
		prevShape = fr.shape
		if f == 0 {
			continue
		}
		for i, got := range d.syn[0].out {
			if want := x[(f-1)*1024+i]; math.Abs(got-want) > 1e-9 {
				t.Fatalf("frame %d (%+v after shape %d): sample %d is %g, want %g", f, fr, frames[f-1].shape, i, got, want)
			}
		}
	}
}

// synthesisWindow writes out the standard's window of a sequence (4.6.11.3.2) sample by
// sample: one of 2048 samples, or eight of 256.
func synthesisWindow(w *windows, seq, prev, cur int) [][]float64 {
	long := func(shape, i int) float64 { // i < 2048
		if i < 1024 {
			return w.long[shape][i]
		}
		return w.long[shape][2047-i]
	}
	short := func(shape, i int) float64 { // i < 256
		if i < 128 {
			return w.short[shape][i]
		}
		return w.short[shape][255-i]
	}
	if seq == eightShort {
		out := make([][]float64, 8)
		for k := range out {
			out[k] = make([]float64, 256)
			for i := range out[k] {
				shape := cur
				if k == 0 && i < 128 {
					shape = prev
				}
				out[k][i] = short(shape, i)
			}
		}
		return out
	}
	out := make([]float64, 2048)
	for i := range out {
		switch {
		case i < 1024 && seq == longStop:
			switch {
			case i < 448:
			case i < 576:
				out[i] = short(prev, i-448)
			default:
				out[i] = 1
			}
		case i < 1024:
			out[i] = long(prev, i)
		case seq == longStart:
			switch {
			case i < 1472:
				out[i] = 1
			case i < 1600:
				out[i] = short(cur, i-1472+128)
			}
		default:
			out[i] = long(cur, i)
		}
	}
	return [][]float64{out}
}

// mdct is the forward MDCT by its definition: n samples in, n/2 coefficients out.
func mdct(spec, in []float64) {
	n := len(in)
	n0 := (float64(n)/2 + 1) / 2
	for k := range spec {
		var s float64
		for i, v := range in {
			s += v * math.Cos(2*math.Pi/float64(n)*(float64(i)+n0)*(float64(k)+0.5))
		}
		spec[k] = 2 * s // the standard's analysis scale (4.6.11.3.1 leaves it to the encoder)
	}
}
