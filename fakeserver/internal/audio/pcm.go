package audio

import (
	"errors"
	"fmt"
	"io"
)

// pcmBlock is how many frames a decoder hands the meter at a time.
const pcmBlock = 8192

// pcmBuffers is how many blocks are in flight between the decoder and the meter.
const pcmBuffers = 4

// measurePCM measures the interleaved samples that read produces until io.EOF. Decoding runs on
// its own goroutine while the meter works on the caller's, so the two stages overlap; with a
// core to spare, the meter splits the channels between two goroutines (K-weighting, true peak
// and statistics per channel; see Meter.processSplit). Memory does not grow with the duration
// (but for the meter's short-term series, 2 bytes a second): pcmBuffers blocks of pcmBlock
// frames at 8 bytes a sample (512 KiB for stereo, 2 MiB for 8 channels), and for a split meter
// one more block's worth per channel ((pcmBlock+tpHist)·8 bytes, 64 KiB) plus 16 bytes per
// meter chunk of a block (under 200 bytes), beside the decoder's own state and the meter's
// fixed tables. A panic in read becomes an error wrapping ErrMalformed.
//
// The consumer checks in's context and ceilings (see Limits) after every block, so a file that
// crosses one stops within one block of decoding; the decoder goroutine is then told to stop.
func measurePCM(in *source, rate, channels int, weights []float64, read func(dst []float64) (int, error)) (MeterResult, error) {
	m, err := NewMeter(rate, channels)
	if err != nil {
		return MeterResult{}, fmt.Errorf("%w: %w", ErrUnsupportedCodec, err)
	}
	if weights != nil {
		if err := m.SetChannelWeights(weights); err != nil {
			return MeterResult{}, fmt.Errorf("%w: %w", ErrUnsupportedCodec, err)
		}
	}
	if err := in.check(0, rate, channels); err != nil {
		return MeterResult{}, err
	}
	free := make(chan []float64, pcmBuffers)
	for range pcmBuffers {
		free <- make([]float64, pcmBlock*channels)
	}
	full := make(chan []float64, pcmBuffers)
	errc := make(chan error, 1)
	stop := make(chan struct{}) // closed when the consumer gives up
	go func() {
		defer close(full)
		defer func() {
			if p := recover(); p != nil {
				errc <- fmt.Errorf("%w: decoder failed: %v", ErrMalformed, p)
			}
		}()
		for {
			var buf []float64
			select {
			case buf = <-free:
			case <-stop:
				errc <- nil
				return
			}
			n, err := read(buf)
			if n > 0 {
				select {
				case full <- buf[:n]:
				case <-stop:
					errc <- nil
					return
				}
			} else {
				free <- buf
			}
			if errors.Is(err, io.EOF) {
				errc <- nil
				return
			}
			if err != nil {
				errc <- err
				return
			}
		}
	}()
	var frames int64
	for buf := range full {
		// With a spare core, the meter measures the channels on two goroutines while the
		// decoder is ahead of it: the decoder then waits on the meter and leaves its core idle.
		// A decoder slower than the meter keeps the queue short and the meter on one goroutine,
		// which costs less CPU. Both ways give the same bits (see processSplit).
		m.split = in.split || (in.spare && len(full) >= pcmBuffers-1)
		m.Process(buf)
		free <- buf[:cap(buf)]
		frames += int64(len(buf) / channels)
		if err := in.check(frames, rate, channels); err != nil {
			close(stop)
			for range full { // let the decoder see stop, whichever send it is blocked in
			}
			<-errc
			return MeterResult{}, err
		}
	}
	if err := <-errc; err != nil {
		return MeterResult{}, err
	}
	return m.Result(), nil
}
