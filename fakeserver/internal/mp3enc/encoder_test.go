package mp3enc

import (
	"bytes"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/podqa/podqa-go/fakeserver/internal/audio"
	"github.com/podqa/podqa-go/fakeserver/internal/mp3dec"
	"github.com/podqa/podqa-go/internal/mpegaudio"
)

// encode encodes interleaved pcm of o.Channels channels.
func encode(t testing.TB, o Options, pcm []float64) []byte {
	t.Helper()
	var buf bytes.Buffer
	e, err := New(&buf, o, int64(len(pcm)/o.Channels))
	if err != nil {
		t.Fatal(err)
	}
	for len(pcm) > 0 { // in uneven pieces, as a stream arrives
		n := min(len(pcm), o.Channels*777)
		if err := e.Write(pcm[:n]); err != nil {
			t.Fatal(err)
		}
		pcm = pcm[n:]
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// rawDecode decodes every audio frame after the Info frame with no trimming.
func rawDecode(t testing.TB, stream []byte) []float64 {
	t.Helper()
	d := mp3dec.NewDecoder()
	var out []float64
	for i := 0; len(stream) > 0; i++ {
		h, ok := mpegaudio.ParseHeader(stream)
		if !ok || h.Size > len(stream) {
			t.Fatalf("frame %d: no header, %d bytes left", i, len(stream))
		}
		frame := stream[:h.Size]
		stream = stream[h.Size:]
		if i == 0 {
			if _, ok := mpegaudio.ParseInfoFrame(frame, h); !ok {
				t.Fatal("the first frame is not an Info frame")
			}
			continue
		}
		var err error
		if out, err = d.DecodeFrame(out, frame); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
	}
	return out
}

// speech synthesises n frames of the engine's speech-like audio at -16 LUFS.
func speech(t testing.TB, rate, channels int, seconds float64) []float64 {
	t.Helper()
	wav, err := audio.Synthesize(audio.SynthSpec{DurationSeconds: seconds, SampleRate: rate, Channels: channels})
	if err != nil {
		t.Fatal(err)
	}
	r, err := audio.NewWAVReader(bytes.NewReader(wav))
	if err != nil {
		t.Fatal(err)
	}
	var pcm []float64
	buf := make([]float64, 4096)
	for {
		n, err := r.Read(buf)
		pcm = append(pcm, buf[:n]...)
		if errors.Is(err, io.EOF) {
			return pcm
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestDelay: the stream lags the input by encoderDelay + decoderDelay samples exactly, at unit
// gain, and the Info frame says so, so that the trimmed decode is the input.
func TestDelay(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 20000
	pcm := make([]float64, n)
	for i := range pcm {
		pcm[i] = 0.25 * (rng.Float64()*2 - 1)
	}
	out := rawDecode(t, encode(t, Options{SampleRate: 44100, Channels: 1, BitRate: 320}, pcm))
	best, lag := 0.0, -1
	for l := 0; l < 2*frameLength; l++ {
		var s float64
		for i := 0; i < 8000; i++ {
			s += pcm[i] * out[i+l]
		}
		if s > best {
			best, lag = s, l
		}
	}
	if lag != encoderDelay+decoderDelay {
		t.Fatalf("the decoded stream lags %d samples, want %d", lag, encoderDelay+decoderDelay)
	}
	var num, den float64
	for i := range n {
		num += pcm[i] * out[i+lag]
		den += pcm[i] * pcm[i]
	}
	if g := num / den; math.Abs(g-1) > 0.02 {
		t.Errorf("gain %.4f, want 1", g)
	}
}

// TestEncodesEveryRateAndLayout: every rate, both layouts and a spread of bit rates give a
// stream our decoder reads whole, of the announced length once trimmed, measuring as the input
// does: loudness within 0.05 LU and true peak within 0.1 dB.
func TestEncodesEveryRateAndLayout(t *testing.T) {
	t.Parallel()
	tests := []Options{
		{44100, 2, 128}, {44100, 1, 64}, {48000, 2, 192}, {48000, 1, 96}, {32000, 2, 128}, {32000, 1, 48}, {44100, 2, 320},
		{24000, 2, 96}, {22050, 1, 64}, {16000, 1, 32}, {12000, 2, 48}, {11025, 1, 32}, {8000, 1, 24}, {8000, 2, 160},
	}
	// -short keeps mono and stereo in each MPEG version and every rate; these four repeat a
	// rate and layout already kept, and are a third of the table's CPU under -race.
	fullOnly := map[Options]bool{{48000, 1, 96}: true, {32000, 1, 48}: true, {44100, 2, 320}: true, {8000, 2, 160}: true}
	for _, o := range tests {
		t.Run("", func(t *testing.T) {
			t.Parallel()
			if testing.Short() && fullOnly[o] {
				t.Skipf("-short: the full run also encodes and measures %+v", o)
			}
			pcm := speech(t, o.SampleRate, o.Channels, 12)
			stream := encode(t, o, pcm)
			in, err := audio.Measure(bytes.NewReader(wavOf(t, o, pcm)))
			if err != nil {
				t.Fatal(err)
			}
			got, err := audio.MeasureFile(bytes.NewReader(stream), "x.mp3")
			if err != nil {
				t.Fatal(err)
			}
			if got.Frames != int64(len(pcm)/o.Channels) || got.Channels != o.Channels || got.SampleRate != o.SampleRate || got.BitRate != int64(o.BitRate*1000) {
				t.Errorf("%+v: decoded %d frames %d ch %d Hz %d bit/s, want %d", o, got.Frames, got.Channels, got.SampleRate, got.BitRate, len(pcm)/o.Channels)
			}
			dI, dTP := got.IntegratedLUFS-in.IntegratedLUFS, got.TruePeakDB-in.TruePeakDB
			t.Logf("%+v: %d bytes, ΔI %+.3f LU, ΔTP %+.3f dB", o, len(stream), dI, dTP)
			if math.Abs(dI) > 0.05 || math.Abs(dTP) > 0.1 {
				t.Errorf("%+v: ΔI %+.3f LU, ΔTP %+.3f dB; want within 0.05 LU and 0.1 dB", o, dI, dTP)
			}
		})
	}
}

// TestRandomInputs: random lengths (around frame edges too), amplitudes and layouts decode to
// exactly the samples encoded, with the input's energy.
func TestRandomInputs(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 11))
	lengths := []int{1, 575, 1151, 1152, 1153, 2304, 2305}
	for range 8 {
		lengths = append(lengths, 1+rng.IntN(20000))
	}
	for i, n := range lengths {
		o := referenceCases[i%len(referenceCases)]
		amp := []float64{0.01, 0.3, 1, 1.5}[i%4] // 1.5: clipped input must not break the stream
		pcm := make([]float64, n*o.Channels)
		for j := range pcm {
			pcm[j] = amp * math.Sin(float64(j/o.Channels)*(0.01+0.3*rng.Float64()))
		}
		got, err := audio.MeasureFile(bytes.NewReader(encode(t, o, pcm)), "x.mp3")
		if err != nil {
			t.Fatalf("%d samples of %+v: %v", n, o, err)
		}
		if got.Frames != int64(n) {
			t.Errorf("%d samples of %+v decode to %d", n, o, got.Frames)
		}
	}
}

func TestRefusals(t *testing.T) {
	t.Parallel()
	for _, o := range []Options{{20000, 2, 128}, {22050, 2, 192}, {44100, 2, 8}, {44100, 3, 128}, {44100, 2, 100}, {44100, 2, 0}} {
		if _, err := New(io.Discard, o, 10); !errors.Is(err, ErrOptions) {
			t.Errorf("%+v: %v, want ErrOptions", o, err)
		}
	}
	e, err := New(io.Discard, Options{44100, 2, 128}, 2)
	if err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"half an instant":     e.Write([]float64{0.1}),
		"more than announced": e.Write([]float64{0, 0, 0, 0, 0, 0}),
	} {
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := e.Close(); err == nil {
		t.Error("Close before every announced sample was written: accepted")
	}
}

// TestMemoryIsFlat: encoding ten seconds allocates no more than encoding one. (Ten times the
// length shows the count does not grow with it as well as a minute would; AllocsPerRun encodes
// each length three times, and under -race a minute cost most of the package's CPU.)
func TestMemoryIsFlat(t *testing.T) {
	o := Options{44100, 2, 128}
	block := make([]float64, 2*4410)
	allocs := func(seconds int) float64 {
		return testing.AllocsPerRun(2, func() {
			e, err := New(io.Discard, o, int64(seconds*44100))
			if err != nil {
				t.Fatal(err)
			}
			for range seconds * 10 {
				if err := e.Write(block); err != nil {
					t.Fatal(err)
				}
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
	if one, ten := allocs(1), allocs(10); ten > one {
		t.Errorf("ten seconds take %.0f allocations, one second %.0f", ten, one)
	}
}

// TestEveryBitRateAndRate: every rate and bit rate, the lowest included, makes a stream our
// decoder reads to exactly the samples encoded (the Info frame takes a higher bit rate where its
// own is too small to hold the tag).
func TestEveryBitRateAndRate(t *testing.T) {
	t.Parallel()
	pcm := make([]float64, 2*3000)
	for i := range pcm {
		pcm[i] = 0.3 * math.Sin(float64(i)*0.05)
	}
	for _, v := range versions {
		for _, rate := range v.rates {
			for _, br := range v.bitRates[1:] {
				for _, ch := range []int{1, 2} {
					o := Options{SampleRate: rate, Channels: ch, BitRate: br}
					got, err := audio.MeasureFile(bytes.NewReader(encode(t, o, pcm[:3000*ch])), "x.mp3")
					if err != nil || got.Frames != 3000 {
						t.Errorf("%+v: %d frames, %v", o, got.Frames, err)
					}
				}
			}
		}
	}
}
