package vorbisdec

import (
	"math/rand/v2"
	"testing"
)

// inverseCoupleSpec is the specification's square polar mapping, branch by branch (section
// 4.3.5), the reference of inverseCouple.
func inverseCoupleSpec(m, a float32) (float32, float32) {
	if m > 0 {
		if a > 0 {
			return m, m - a
		}
		return m + a, m
	}
	if a > 0 {
		return m, m + a
	}
	return m - a, m
}

// TestInverseCoupleMatchesSpec checks inverseCouple against the specification's branches on
// every sign and zero combination and on random values.
func TestInverseCoupleMatchesSpec(t *testing.T) {
	t.Parallel()
	vals := []float32{0, float32(negZero()), 1, -1, 0.5, -0.25, 3e-8, -7}
	var mag, ang []float32
	for _, m := range vals {
		for _, a := range vals {
			mag, ang = append(mag, m), append(ang, a)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		mag = append(mag, float32(r.NormFloat64()))
		ang = append(ang, float32(r.NormFloat64()))
	}
	gm, ga := append([]float32(nil), mag...), append([]float32(nil), ang...)
	inverseCouple(gm, ga)
	for i := range mag {
		wm, wa := inverseCoupleSpec(mag[i], ang[i])
		if gm[i] != wm || ga[i] != wa {
			t.Errorf("m %v a %v: got %v %v, want %v %v", mag[i], ang[i], gm[i], ga[i], wm, wa)
		}
	}
}

func negZero() float64 { z := 0.0; return -z }

// BenchmarkInverseCouple times the inverse coupling of a long block's 1,024 pairs, a third of
// them zero and the rest of random signs, as in speech.
func BenchmarkInverseCouple(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	mag, ang := make([]float32, 1024), make([]float32, 1024)
	for i := range mag {
		if r.IntN(3) > 0 {
			mag[i], ang[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
		}
	}
	m2, a2 := make([]float32, 1024), make([]float32, 1024)
	b.ReportAllocs()
	for b.Loop() {
		copy(m2, mag)
		copy(a2, ang)
		inverseCouple(m2, a2)
	}
}
