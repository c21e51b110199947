package dashboard

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/core"
)

func fmtSscanXY(xy string, x, y *float64) (int, error) { return fmt.Sscanf(xy, "%g,%g", x, y) }

func TestPlotLoudness(t *testing.T) {
	t.Parallel()
	nan := float32(math.NaN())
	limits := core.Limits{Loudness: core.Range{Min: -17, Max: -15}, MonoLoudness: core.Range{Min: -20, Max: -18}, MaxTruePeak: -1}
	for _, tc := range []struct {
		name     string
		lufs     []float32
		channels int
		lines    int
		bandMin  float64
	}{
		{"empty", nil, 2, 0, -17},
		{"all measured", []float32{-16, -15.5, -17.25, -16}, 2, 1, -17},
		{"gated runs", []float32{nan, -16, -16.5, nan, nan, -15, nan}, 2, 2, -17},
		{"mono band", []float32{-19, -19.5}, 1, 1, -20},
		{"far below the band", []float32{-60, -59}, 2, 1, -17},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := PlotLoudness(LoudnessSeries{Step: time.Second, Window: 3 * time.Second, LUFS: tc.lufs}, limits, &Measurement{Channels: tc.channels, TruePeakDB: -1.4, IntegratedLUFS: -16.2})
			var points [][2]*float64
			if err := json.Unmarshal([]byte(p.Points), &points); err != nil || len(points) != len(tc.lufs) {
				t.Fatalf("points %s (%v)", p.Points, err)
			}
			vertices := 0
			for _, l := range p.Lines {
				vertices += len(strings.Fields(l))
				for _, xy := range strings.Fields(l) {
					var x, y float64
					if _, err := fmtSscanXY(xy, &x, &y); err != nil || x < p.Left || x > p.Right || y < p.Top || y > p.Bottom {
						t.Fatalf("vertex %q outside the plot (%v)", xy, err)
					}
				}
			}
			measured := 0
			for i, v := range tc.lufs {
				if !math.IsNaN(float64(v)) {
					measured++
					if points[i][1] == nil || *points[i][1] != float64(v) {
						t.Fatalf("point %d is %v, want %v", i, points[i][1], v)
					}
				} else if points[i][1] != nil {
					t.Fatalf("gated point %d is %v", i, *points[i][1])
				}
			}
			if len(p.Lines) != tc.lines || vertices != measured || p.BandMin != tc.bandMin || !p.HasCeiling || p.Ceiling != -1 {
				t.Fatalf("lines %d (want %d), vertices %d (want %d), band %v, ceiling %v", len(p.Lines), tc.lines, vertices, measured, p.BandMin, p.Ceiling)
			}
			// Higher loudness is higher on the plot; the band sits where its values are.
			if p.BandH <= 0 || p.DomainMin > -60 && tc.name == "far below the band" {
				t.Fatalf("band y %v h %v, domain %v..%v", p.BandY, p.BandH, p.DomainMin, p.DomainMax)
			}
			// No frame without data: a series with no measured value draws nothing.
			if p.HasData != (measured > 0) {
				t.Fatalf("HasData %v with %d measured values", p.HasData, measured)
			}
			// The integrated loudness is a line inside the band's scale, between its edges here.
			if !p.HasIntegrated || p.IntegratedY < p.Top || p.IntegratedY > p.Bottom {
				t.Fatalf("integrated line at %v (has %v)", p.IntegratedY, p.HasIntegrated)
			}
		})
	}
}
