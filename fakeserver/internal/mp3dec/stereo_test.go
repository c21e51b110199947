package mp3dec

import (
	"math"
	"testing"

	"github.com/podqa/podqa-go/internal/mpegaudio"
)

// TestStereo checks mid/side and intensity stereo on spectra built by hand, for long blocks of
// MPEG-1 at 44.1 kHz (bands from Table B.8) and MPEG-2 at 22.05 kHz: which lines each applies
// to, and the ratios of ISO/IEC 11172-3 §2.4.3.4.9 and ISO/IEC 13818-3.
func TestStereo(t *testing.T) {
	t.Parallel()
	const v = 0.5
	tests := []struct {
		name    string
		version int
		rate    int
		modeExt int
		// The right channel holds values up to line rightEnd; the intensity position of every
		// band is isPos (MPEG-2: with intensity_scale isScale and illegal position isMax).
		rightEnd       int
		isPos          int
		isScale, isMax int
		// Expected left and right values at a line below rightEnd and at one above.
		below, above [2]float64
	}{
		{"mid/side only", 1, 44100, 2, 576, 0, 0, 0,
			[2]float64{(v + 0.25) / math.Sqrt2, (v - 0.25) / math.Sqrt2}, [2]float64{(v + 0.25) / math.Sqrt2, (v - 0.25) / math.Sqrt2}},
		{"MPEG-1 intensity, position 2", 1, 44100, 1, 100, 2, 0, 0,
			[2]float64{v, 0.25}, [2]float64{v * math.Tan(math.Pi/6) / (1 + math.Tan(math.Pi/6)), v / (1 + math.Tan(math.Pi/6))}},
		{"MPEG-1 intensity, position 6 (all left)", 1, 44100, 1, 100, 6, 0, 0, [2]float64{v, 0.25}, [2]float64{v, 0}},
		{"MPEG-1 intensity and mid/side, position 7 is illegal", 1, 44100, 3, 100, 7, 0, 0,
			[2]float64{(v + 0.25) / math.Sqrt2, (v - 0.25) / math.Sqrt2}, [2]float64{v / math.Sqrt2, v / math.Sqrt2}},
		{"MPEG-1 intensity, position 12 (a 4-bit scale factor) is illegal", 1, 44100, 1, 100, 12, 0, 0, [2]float64{v, 0.25}, [2]float64{v, 0}},
		{"MPEG-2 intensity, odd position scales left", 2, 22050, 1, 100, 3, 0, 7,
			[2]float64{v, 0.25}, [2]float64{v * math.Pow(2, -0.25*2), v}},
		{"MPEG-2 intensity, even position scales right, scale 1", 2, 22050, 1, 100, 2, 1, 7,
			[2]float64{v, 0.25}, [2]float64{v, v * math.Pow(2, -0.5*1)}},
		{"MPEG-2 intensity, illegal position", 2, 22050, 1, 100, 7, 0, 7, [2]float64{v, 0.25}, [2]float64{v, 0}},
		// ffmpeg takes positions from 16 up as illegal; the standard only the band's largest.
		{"MPEG-2 intensity, position 20 of a 5-bit band is legal", 2, 22050, 1, 100, 20, 0, 31,
			[2]float64{v, 0.25}, [2]float64{v, v * math.Pow(2, -0.25*10)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b bitstream
			var out frameSpectra
			out.granules, out.channels = 1, 2
			l, r := &out.spectra[0][0].xr, &out.spectra[0][1].xr
			for i := range 576 {
				l[i] = v
				if i < tt.rightEnd {
					r[i] = 0.25
				}
			}
			b.info[0][1].sfCompress = tt.isScale
			for band := range 22 {
				b.sf[0][1].long[band] = tt.isPos
				b.isMax[0][band] = tt.isMax
			}
			h := mpegaudio.Header{Version: tt.version, Rate: tt.rate, ChannelMode: 1, ModeExt: tt.modeExt, Channels: 2}
			lay := &layouts[rateIndex(tt.rate)]
			b.stereo(&out, 0, h, lay)
			// A line in a band wholly above the right channel's last value, and one below it.
			above := lay.longStart[21] + 2
			for _, c := range []struct {
				line int
				want [2]float64
			}{{10, tt.below}, {above, tt.above}} {
				if math.Abs(l[c.line]-c.want[0]) > 1e-12 || math.Abs(r[c.line]-c.want[1]) > 1e-12 {
					t.Errorf("line %d: (%v, %v), want %v", c.line, l[c.line], r[c.line], c.want)
				}
			}
		})
	}
}
