package audio

import (
	"fmt"
	"io"
	"sync"
)

// segments is the pipeline that MP3, Vorbis and Opus decode in parallel segments with: a walker
// goroutine splits the stream into jobs J (the walk), workers goroutines decode them to results R,
// and next hands the results out in the walk's order. At most depth segments are in the order at
// once (being decoded, or decoded and not yet read), so memory does not depend on the duration;
// each codec chooses its depth from what it measured. stop ends every goroutine,
// wherever the reader stopped.
type segments[J, R any] struct {
	order   chan *segmentSlot[J, R]
	quit    chan struct{} // closed by stop: nobody takes segments any more
	walked  chan struct{} // closed when the walker has returned
	workers sync.WaitGroup
	walkErr error // the walk's, set before order is closed
}

// segmentSlot is one job in the reading order, with where its worker leaves its result.
type segmentSlot[J, R any] struct {
	job J
	res chan segmentResult[R] // buffered: a worker never waits on the reader
}

type segmentResult[R any] struct {
	r   R
	err error
}

// startSegments starts the walker and workers goroutines of a pipeline. walk reads the stream
// and hands each segment's job to submit, which reports false once the reader has stopped (walk
// then returns); decode decodes one job on the worker numbered worker (0 ≤ worker < workers, so
// a worker may keep state of its own). A panic in either becomes an ErrMalformed error naming
// the codec.
func startSegments[J, R any](codec string, workers, depth int, walk func(submit func(J) bool) error, decode func(worker int, j J) (R, error)) *segments[J, R] {
	s := &segments[J, R]{
		order:  make(chan *segmentSlot[J, R], depth),
		quit:   make(chan struct{}),
		walked: make(chan struct{}),
	}
	jobs := make(chan *segmentSlot[J, R])
	for w := range workers {
		s.workers.Add(1)
		go func() {
			defer s.workers.Done()
			for sg := range jobs {
				sg.res <- decodeSegment(codec, w, sg.job, decode)
			}
		}()
	}
	go func() {
		defer close(s.walked)
		defer close(jobs)
		defer close(s.order)
		defer func() {
			if p := recover(); p != nil {
				s.walkErr = fmt.Errorf("%w: %s framing: %v", ErrMalformed, codec, p)
			}
		}()
		s.walkErr = walk(s.handOver(jobs))
	}()
	return s
}

// handOver returns the walker's submit: it gives a job its place in the reading order (which
// bounds the segments in flight), then to a worker.
func (s *segments[J, R]) handOver(jobs chan<- *segmentSlot[J, R]) func(J) bool {
	return func(j J) bool {
		sg := &segmentSlot[J, R]{job: j, res: make(chan segmentResult[R], 1)}
		select {
		case s.order <- sg:
		case <-s.quit:
			return false
		}
		select {
		case jobs <- sg:
			return true
		case <-s.quit:
			return false
		}
	}
}

func decodeSegment[J, R any](codec string, worker int, j J, decode func(int, J) (R, error)) (res segmentResult[R]) {
	defer func() {
		if p := recover(); p != nil {
			res = segmentResult[R]{err: fmt.Errorf("%w: %s decoder failed: %v", ErrMalformed, codec, p)}
		}
	}()
	r, err := decode(worker, j)
	return segmentResult[R]{r: r, err: err}
}

// next returns the next segment's job and result in the walk's order, waiting for its decoding.
// After the last segment it returns the walk's error, which so reaches the reader after the
// samples before it, as in a sequential decode, or io.EOF.
func (s *segments[J, R]) next() (J, R, error) {
	sg, ok := <-s.order
	if !ok {
		var j J
		var r R
		if s.walkErr != nil {
			return j, r, s.walkErr
		}
		return j, r, io.EOF
	}
	res := <-sg.res
	return sg.job, res.r, res.err
}

// stop ends the walker and the workers (the reader need not have reached the end, and must not
// call next any more) and returns the walk's error. Every goroutine of the pipeline has
// returned when it does.
func (s *segments[J, R]) stop() error {
	// The walker may be blocked handing over a segment nobody will take.
	close(s.quit)
	<-s.walked
	s.workers.Wait()
	return s.walkErr
}

// segmentBuffers recycles the sample buffers of decoded segments, so that memory stays flat: a
// worker takes one for a segment, the reader gives it back once it has used the samples. It
// holds at most depth+2 buffers: those of the segments in the order (depth, as given to
// startSegments), the one being read, and one that the reader has just given back.
type segmentBuffers[S float32 | float64] chan []S

func newSegmentBuffers[S float32 | float64](depth int) segmentBuffers[S] {
	return make(segmentBuffers[S], depth+2)
}

// get returns an empty buffer with room for n samples, a free one if it is big enough.
func (b segmentBuffers[S]) get(n int) []S {
	select {
	case buf := <-b:
		if cap(buf) >= n {
			return buf[:0]
		}
	default:
	}
	return make([]S, 0, n)
}

// put gives a buffer back for a later segment (or drops it when enough are free).
func (b segmentBuffers[S]) put(buf []S) {
	if buf == nil {
		return
	}
	select {
	case b <- buf:
	default:
	}
}
