package mp3dec

import (
	"math"

	"github.com/podqa/podqa-go/internal/mpegaudio"
)

// The kernels marked //go:norace here touch only their own buffers: see filterbank.go.

// Intensity stereo ratios: MPEG-1 (ISO/IEC 11172-3 §2.4.3.4.9.3) divides the left channel's
// values by tan(is_pos·π/12); MPEG-2 (ISO/IEC 13818-3) scales one channel by powers of 2^(−1/4)
// or 2^(−1/2).
var (
	isRatioMPEG1 = func() (t [7][2]float64) {
		for p := range 7 {
			k := math.Tan(float64(p) * math.Pi / 12)
			if p == 6 {
				t[p] = [2]float64{1, 0}
				continue
			}
			t[p] = [2]float64{k / (1 + k), 1 / (1 + k)}
		}
		return t
	}()
	isRatioLSF = func() (t [2][32][2]float64) {
		for scale := range 2 {
			io := math.Pow(2, -0.25*float64(scale+1))
			for p := range 32 {
				switch {
				case p == 0:
					t[scale][p] = [2]float64{1, 1}
				case p%2 == 1:
					t[scale][p] = [2]float64{math.Pow(io, float64(p+1)/2), 1}
				default:
					t[scale][p] = [2]float64{1, math.Pow(io, float64(p)/2)}
				}
			}
		}
		return t
	}()
)

// stereo applies mid/side and intensity stereo to granule g's two channels, in coded order.
func (b *bitstream) stereo(out *frameSpectra, g int, h mpegaudio.Header, lay *bandLayout) {
	if h.ChannelMode != 1 || h.ModeExt == 0 {
		return
	}
	ms := h.ModeExt&2 != 0
	l, r := &out.spectra[g][0].xr, &out.spectra[g][1].xr
	if h.ModeExt&1 == 0 {
		midSide(l, r, 0, 576)
		return
	}
	gi := &b.info[g][1]
	sf := &b.sf[g][1]
	// applyIS processes lines from..to of a band with intensity position p, or with mid/side
	// when p is illegal: 7 and above for MPEG-1 (a 4-bit scale factor may hold more; ffmpeg
	// decides so too), and for MPEG-2 the largest value of the band's length (see doc.go).
	applyIS := func(from, to, p, illegal int) {
		if p >= illegal || p < 0 {
			if ms {
				midSide(l, r, from, to)
			}
			return
		}
		var k [2]float64
		if h.Version == 1 {
			k = isRatioMPEG1[p]
		} else {
			k = isRatioLSF[gi.sfCompress&1][min(p, 31)]
		}
		for i := from; i < to; i++ {
			v := l[i]
			l[i], r[i] = v*k[0], v*k[1]
		}
	}
	illegalLong := func(band int) int {
		if h.Version == 1 {
			return 7
		}
		return b.isMax[0][band]
	}
	if gi.blockType != 2 {
		bound := lastNonZero(r, 0, 576)
		for band := range 22 {
			from, to := lay.longStart[band], lay.longStart[band+1]
			if from <= bound {
				if ms {
					midSide(l, r, from, to)
				}
				continue
			}
			sb := min(band, 20) // the last band has no scale factor: it takes the one before
			applyIS(from, to, sf.long[sb], illegalLong(sb))
		}
		return
	}
	first := 0
	shortZero := true
	if gi.mixed {
		first = 3
	}
	for w := range 3 {
		bound := -1 // the last short band of window w with a non-zero value
		for band := first; band < 13; band++ {
			w0 := lay.shortStart[band]
			width := lay.shortStart[band+1] - w0
			from := 3*w0 + w*width
			if lastNonZero(r, from, from+width) >= 0 {
				bound = band
				shortZero = false
			}
		}
		for band := first; band < 13; band++ {
			w0 := lay.shortStart[band]
			width := lay.shortStart[band+1] - w0
			from := 3*w0 + w*width
			if band <= bound {
				if ms {
					midSide(l, r, from, from+width)
				}
				continue
			}
			sb := min(band, 11)
			illegal := 7
			if h.Version != 1 {
				illegal = b.isMaxS[sb]
			}
			applyIS(from, from+width, sf.short[sb][w], illegal)
		}
	}
	if gi.mixed {
		// The long part takes intensity stereo only above the right channel's last value,
		// and only when its short part is all zero.
		bound := lastNonZero(r, 0, 36)
		for band := range lay.mixedLong {
			from, to := lay.longStart[band], lay.longStart[band+1]
			if !shortZero || from <= bound {
				if ms {
					midSide(l, r, from, to)
				}
				continue
			}
			applyIS(from, to, sf.long[band], illegalLong(band))
		}
	}
}

// midSide turns mid and side values into left and right.
//
//go:norace
func midSide(l, r *[576]float64, from, to int) {
	for i := from; i < to; i++ {
		m, s := l[i], r[i]
		l[i], r[i] = (m+s)*math.Sqrt2/2, (m-s)*math.Sqrt2/2
	}
}

// lastNonZero returns the index of the last non-zero value of x[from:to], or −1.
func lastNonZero(x *[576]float64, from, to int) int {
	for i := to - 1; i >= from; i-- {
		if x[i] != 0 {
			return i
		}
	}
	return -1
}
