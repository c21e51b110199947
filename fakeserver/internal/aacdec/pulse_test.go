package aacdec

import (
	"math"
	"testing"
)

// TestPulseData decodes a hand-made mono block whose one band holds (0, 1, 0, −1) and two
// pulses (+3 at 1, +5 at 3): a pulse adds its amplitude away from zero, so the spectrum is
// (0, 4^(4/3), 0, −6^(4/3)) at a scale factor of 100 (gain 1). ffmpeg's encoder writes no
// pulse data, so no fixture has any.
func TestPulseData(t *testing.T) {
	t.Parallel()
	w := new(bitWriter).put(elemSCE, 3).put(0, 4).
		put(100, 8).                          // global_gain
		put(0, 1).put(onlyLong, 2).put(0, 1). // ics_info
		put(1, 6).put(0, 1).                  // max_sfb 1, no prediction
		put(1, 4).put(1, 5)                   // one section of codebook 1, one band long
	sf := scalefactorCodes[60] // a difference of 0: the global gain
	w.put(sf.code, int(sf.len))
	w.put(1, 1).put(1, 2).put(0, 6).put(1, 5).put(3, 4).put(2, 5).put(5, 4) // pulses
	w.put(0, 1).put(0, 1)                                                   // no TNS, no gain control
	cw := spectralCodes[0][1*27+2*9+1*3+0]                                  // (0, 1, 0, −1)
	w.put(cw.code, int(cw.len)).put(elemEND, 3)
	d, err := NewDecoder(Config{ObjectType: objectLC, SampleRate: 44100, Channels: 1, RateIndex: 4})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Decode(nil, w.buf); err != nil {
		t.Fatal(err)
	}
	want := []float64{0, math.Pow(4, 4.0/3), 0, -math.Pow(6, 4.0/3)}
	for i, v := range want {
		if math.Abs(d.ch[0].spec[i]-v) > 1e-12 {
			t.Fatalf("spectrum %v, want %v", d.ch[0].spec[:4], want)
		}
	}
	if d.Stats().Pulses != 1 {
		t.Fatalf("%d blocks with pulses", d.Stats().Pulses)
	}
}
