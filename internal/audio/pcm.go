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
// its own goroutine while the meter works on the caller's, so the two stages overlap; memory is
// a few blocks whatever the duration. A panic in read becomes an error wrapping ErrMalformed.
func measurePCM(rate, channels int, weights []float64, read func(dst []float64) (int, error)) (MeterResult, error) {
	m, err := NewMeter(rate, channels)
	if err != nil {
		return MeterResult{}, fmt.Errorf("%w: %w", ErrUnsupportedCodec, err)
	}
	if weights != nil {
		if err := m.SetChannelWeights(weights); err != nil {
			return MeterResult{}, fmt.Errorf("%w: %w", ErrUnsupportedCodec, err)
		}
	}
	free := make(chan []float64, pcmBuffers)
	for range pcmBuffers {
		free <- make([]float64, pcmBlock*channels)
	}
	full := make(chan []float64, pcmBuffers)
	errc := make(chan error, 1)
	go func() {
		defer close(full)
		defer func() {
			if p := recover(); p != nil {
				errc <- fmt.Errorf("%w: decoder failed: %v", ErrMalformed, p)
			}
		}()
		for {
			buf := <-free
			n, err := read(buf)
			if n > 0 {
				full <- buf[:n]
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
	for buf := range full {
		m.Process(buf)
		free <- buf[:cap(buf)]
	}
	if err := <-errc; err != nil {
		return MeterResult{}, err
	}
	return m.Result(), nil
}
