package opusdec

import (
	"os"
	"testing"
)

// BenchmarkOpusDecode decodes the packets of reference vectors in a loop (the decoder's state
// carries on, as in a stream); one op is one packet. Steady-state decoding must not allocate.
func BenchmarkOpusDecode(b *testing.B) {
	for _, name := range []string{"ld20_s64", "au20_s256", "ld20_m6", "ld2.5_s128"} {
		b.Run(name, func(b *testing.B) {
			o := vectorPackets(b, name)
			d, err := NewDecoder(o.channels)
			if err != nil {
				b.Fatal(err)
			}
			buf := make([]float32, MaxFrameSamples*o.channels)
			samples := 0
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				n, err := d.Decode(o.packets[i], buf)
				if err != nil {
					b.Fatal(err)
				}
				samples += n
				i = (i + 1) % len(o.packets)
			}
			b.ReportMetric(float64(samples)/48000/b.Elapsed().Seconds(), "x-realtime")
		})
	}
}

// TestDecodeDoesNotAllocate is the benchmark's allocation figure as a test.
func TestDecodeDoesNotAllocate(t *testing.T) {
	o := vectorPackets(t, "ld20_s64")
	d, err := NewDecoder(o.channels)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]float32, MaxFrameSamples*o.channels)
	i := 0
	allocs := testing.AllocsPerRun(200, func() {
		if _, err := d.Decode(o.packets[i], buf); err != nil {
			t.Fatal(err)
		}
		i = (i + 1) % len(o.packets)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per packet, want 0", allocs)
	}
}

// BenchmarkIMDCT is one long-block (20 ms) inverse MDCT: a 480-point complex FFT and the
// rotations and window around it.
func BenchmarkIMDCT(b *testing.B) {
	m := sharedMode()
	md := &m.mdct[0]
	in := make([]float32, 960)
	for i := range in {
		in[i] = float32(i%17) - 8
	}
	out := make([]float32, 960+overlap)
	buf := make([]complex64, 480)
	tmp := make([]complex64, 480)
	b.ReportAllocs()
	for b.Loop() {
		md.backward(in, 1, out, &m.window, buf, tmp)
	}
}

// BenchmarkOpusDecodeFile decodes the whole Ogg Opus file named by PODQA_OPUS_BENCH_FILE
// (bench.sh's 10-minute speech file, /tmp/podqa-bench/10min.opus.opus, is the one the figures
// in the commit log come from); one op is the whole file, serially, with one Decoder. It is
// the decode-only figure that bench.sh's end-to-end run is too noisy to resolve.
func BenchmarkOpusDecodeFile(b *testing.B) {
	name := os.Getenv("PODQA_OPUS_BENCH_FILE")
	if name == "" {
		b.Skip("set PODQA_OPUS_BENCH_FILE to an Ogg Opus file (for example /tmp/podqa-bench/10min.opus.opus)")
	}
	raw, err := os.ReadFile(name)
	if err != nil {
		b.Fatal(err)
	}
	o := parseOggOpus(b, raw)
	buf := make([]float32, MaxFrameSamples*o.channels)
	samples := 0
	b.ReportAllocs()
	cpu0 := processCPU()
	for b.Loop() {
		d, err := NewDecoder(o.channels)
		if err != nil {
			b.Fatal(err)
		}
		samples = 0
		for _, p := range o.packets {
			n, err := d.Decode(p, buf)
			if err != nil {
				b.Fatal(err)
			}
			samples += n
		}
	}
	if cpu := processCPU() - cpu0; cpu > 0 {
		b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
	}
	b.ReportMetric(float64(samples)/48000*float64(b.N)/b.Elapsed().Seconds(), "x-realtime")
}
