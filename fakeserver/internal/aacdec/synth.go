package aacdec

// The kernels marked //go:norace here touch only their own buffers: see filterbank.go.

// synthesize applies TNS to ch, channel c's spectrum, transforms it and overlap-adds it into
// out (4.6.11). It touches only channel c's state and scratch.
//
//go:norace
func (d *Decoder) synthesize(ch *channel, c int, out *[FrameSamples]float64) {
	st := &d.state[c]
	y := &d.syn[c]
	info := &ch.info
	if ch.tns.present {
		y.tnsFilters += d.applyTNS(ch)
	}
	buf := y.buf[:]
	prev, cur := st.shape, info.windowShape
	y.windows[info.windowSequence]++
	y.shapes[cur]++
	wl := d.windows.long
	ws := d.windows.short
	switch info.windowSequence {
	case eightShort:
		clear(buf)
		var tmp [256]float64
		for w := range 8 {
			y.short.transform(tmp[:], ch.spec[w*128:w*128+128], 1)
			rise := ws[cur]
			if w == 0 {
				rise = ws[prev]
			}
			fall := ws[cur]
			o := buf[448+w*128:]
			for i := range 128 {
				o[i] += tmp[i] * rise[i]
				o[128+i] += tmp[128+i] * fall[127-i]
			}
		}
	case onlyLong:
		// The common case in one pass: window both halves, overlap-add the first and keep the
		// second (the same operations as the general path below).
		y.long.transform(buf, ch.spec[:], 1)
		rise, fall := wl[prev][:FrameSamples], wl[cur][:FrameSamples]
		const scale = 1.0 / 32768
		first, second := buf[:FrameSamples], buf[FrameSamples:2*FrameSamples]
		for i := range FrameSamples {
			out[i] = (first[i]*rise[i] + st.overlap[i]) * scale
			st.overlap[i] = second[i] * fall[FrameSamples-1-i]
		}
		st.shape = cur
		return
	default:
		y.long.transform(buf, ch.spec[:], 1)
		if info.windowSequence == longStop {
			clear(buf[:448])
			rise := ws[prev]
			for i := range 128 {
				buf[448+i] *= rise[i]
			}
		} else {
			rise := wl[prev]
			for i := range 1024 {
				buf[i] *= rise[i]
			}
		}
		if info.windowSequence == longStart {
			fall := ws[cur]
			for i := range 128 {
				buf[1472+i] *= fall[127-i]
			}
			clear(buf[1600:])
		} else {
			fall := wl[cur]
			for i := range 1024 {
				buf[1024+i] *= fall[1023-i]
			}
		}
	}
	const scale = 1.0 / 32768
	for i := range FrameSamples {
		out[i] = (buf[i] + st.overlap[i]) * scale
	}
	copy(st.overlap[:], buf[FrameSamples:])
	st.shape = cur
}

// applyTNS runs each TNS filter, an all-pole filter of the reflection coefficients, over its
// bands of the spectrum (4.6.9.3), and returns how many filters it ran.
func (d *Decoder) applyTNS(ch *channel) (filters int) {
	info := &ch.info
	maxBand := d.bands.tnsMaxLong
	if info.windowSequence == eightShort {
		maxBand = d.bands.tnsMaxShort
	}
	maxBand = min(maxBand, info.maxSFB)
	numBands := len(info.offsets) - 1
	var lpc [tnsMaxOrder + 1]float64
	for w := range info.numWindows {
		bottom := numBands
		for f := range ch.tns.nFilt[w] {
			flt := &ch.tns.filt[w][f]
			top := bottom
			bottom = max(0, top-flt.length)
			if flt.order == 0 {
				continue
			}
			filters++
			// Reflection coefficients to direct-form coefficients (step-up recursion).
			lpc[0] = 1
			for m := 1; m <= flt.order; m++ {
				k := flt.coef[m-1]
				var b [tnsMaxOrder + 1]float64
				for i := 1; i < m; i++ {
					b[i] = lpc[i] + k*lpc[m-i]
				}
				copy(lpc[1:m], b[1:m])
				lpc[m] = k
			}
			start := int(info.offsets[min(bottom, maxBand)])
			end := int(info.offsets[min(top, maxBand)])
			if end <= start {
				continue
			}
			s := ch.spec[w*128:]
			pos, inc := start, 1
			if flt.down {
				pos, inc = end-1, -1
			}
			for m := 0; m < end-start; m++ {
				v := s[pos]
				for i := 1; i <= min(m, flt.order); i++ {
					v -= lpc[i] * s[pos-i*inc]
				}
				s[pos] = v
				pos += inc
			}
		}
	}
	return filters
}
