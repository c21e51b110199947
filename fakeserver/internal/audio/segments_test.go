package audio

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/synctest"
)

var errTestWalk = errors.New("walk failed")

// walkInts returns a walk that submits the jobs 0..n-1 and then returns err; it records how
// many jobs were taken and closes returned when it returns.
func walkInts(n int, err error, taken *int, returned chan<- struct{}) func(func(int) bool) error {
	return func(submit func(int) bool) error {
		defer close(returned)
		for i := range n {
			if !submit(i) {
				return nil
			}
			*taken++
		}
		return err
	}
}

// TestSegmentsInOrder: results come out in the walk's order even when a later segment's
// decoding ends first (job 0 waits for job 1 to be decoded), then the walk's error or io.EOF,
// for one to three workers.
func TestSegmentsInOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		workers int
		walkErr error
	}{
		{"one worker", 1, nil},
		{"two workers", 2, nil},
		{"three workers", 3, nil},
		{"walk error after the segments", 2, errTestWalk},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				const n = 20
				var taken int
				returned := make(chan struct{})
				oneDone := make(chan struct{})
				s := startSegments("Test", tt.workers, 2*tt.workers, walkInts(n, tt.walkErr, &taken, returned), func(_ int, j int) (int, error) {
					switch {
					case j == 0 && tt.workers > 1:
						<-oneDone
					case j == 1 && tt.workers > 1:
						defer close(oneDone)
					}
					return j * j, nil
				})
				for i := range n {
					j, r, err := s.next()
					if err != nil || j != i || r != i*i {
						t.Fatalf("segment %d: next = %d, %d, %v; want %d, %d, nil", i, j, r, err, i, i*i)
					}
				}
				want := tt.walkErr
				if want == nil {
					want = io.EOF
				}
				for range 2 { // and again: the end stays the end
					if _, _, err := s.next(); !errors.Is(err, want) {
						t.Fatalf("after the last segment: next = %v, want %v", err, want)
					}
				}
				if err := s.stop(); !errors.Is(err, tt.walkErr) {
					t.Fatalf("stop = %v, want %v", err, tt.walkErr)
				}
				if taken != n {
					t.Fatalf("walk handed over %d segments, want %d", taken, n)
				}
			})
		})
	}
}

// TestSegmentsStop stops a pipeline at every kind of early exit: stop returns with the walker
// and every worker returned (synctest.Test fails on a goroutine left blocked), and the error
// reaches the reader where it belongs. With nobody reading, the walk gets at most
// depth segments ahead, for each depth.
func TestSegmentsStop(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		read      int  // segments read before stop
		failAt    int  // job whose decoding fails (-1: none)
		panicAt   int  // job whose decoding panics (-1: none)
		walkPanic bool // the walk panics after its third segment
		readErr   string
		stopErr   string
	}{
		{name: "nothing read", read: 0, failAt: -1, panicAt: -1},
		{name: "stopped mid-stream", read: 5, failAt: -1, panicAt: -1},
		{name: "decode error", read: 4, failAt: 3, panicAt: -1, readErr: "bad segment 3"},
		{name: "decode panic", read: 2, failAt: -1, panicAt: 1, readErr: "Test decoder failed: boom"},
		{name: "walk panic", read: 4, failAt: -1, panicAt: -1, walkPanic: true, readErr: "Test framing: torn", stopErr: "Test framing: torn"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				const workers, depth, n = 2, 3, 100
				var taken int
				returned := make(chan struct{})
				walk := walkInts(n, nil, &taken, returned)
				if tt.walkPanic {
					walk = func(submit func(int) bool) error {
						defer close(returned)
						for i := range 3 {
							if !submit(i) {
								return nil
							}
							taken++
						}
						panic("torn")
					}
				}
				s := startSegments("Test", workers, depth, walk, func(_ int, j int) (int, error) {
					switch j {
					case tt.failAt:
						return 0, errors.New("bad segment 3")
					case tt.panicAt:
						panic("boom")
					}
					return j, nil
				})
				if tt.read == 0 {
					synctest.Wait() // the walker and the workers are all blocked
					if taken != depth {
						t.Fatalf("with nobody reading, the walk handed over %d segments, want %d", taken, depth)
					}
				}
				var readErr error
				for i := 0; i < tt.read && readErr == nil; i++ {
					_, _, readErr = s.next()
				}
				if got := errText(readErr); !strings.Contains(got, tt.readErr) || (tt.readErr == "") != (readErr == nil) {
					t.Fatalf("reading: error %q, want %q", got, tt.readErr)
				}
				if readErr != nil && !strings.HasPrefix(tt.readErr, "bad") && !errors.Is(readErr, ErrMalformed) {
					t.Fatalf("reading: error %v does not wrap ErrMalformed", readErr)
				}
				stopErr := s.stop()
				if got := errText(stopErr); !strings.Contains(got, tt.stopErr) || (tt.stopErr == "") != (stopErr == nil) {
					t.Fatalf("stop = %q, want %q", got, tt.stopErr)
				}
				select {
				case <-returned:
				default:
					t.Fatal("stop returned before the walk")
				}
				if !tt.walkPanic && taken >= n {
					t.Fatalf("the walk went on to the end (%d segments) after the reader stopped", taken)
				}
			})
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestSegmentBuffers: a buffer given back serves a later segment that fits in it; one too
// small is replaced, and a full pool drops what it is given.
func TestSegmentBuffers(t *testing.T) {
	t.Parallel()
	const depth = 2
	b := newSegmentBuffers[float32](depth)
	first := b.get(100)
	if len(first) != 0 || cap(first) != 100 {
		t.Fatalf("get(100) from an empty pool: len %d cap %d", len(first), cap(first))
	}
	first = append(first, 1, 2, 3)
	b.put(first)
	again := b.get(50)
	if len(again) != 0 || cap(again) != 100 || &again[:1][0] != &first[0] {
		t.Fatal("get(50) did not reuse the free buffer of 100")
	}
	b.put(again)
	if big := b.get(200); cap(big) < 200 || len(b) != 0 {
		t.Fatalf("get(200) with a free buffer of 100: cap %d, %d left free", cap(big), len(b))
	}
	b.put(nil)
	if len(b) != 0 {
		t.Fatal("put(nil) kept a buffer")
	}
	for range depth + 3 {
		b.put(make([]float32, 1))
	}
	if len(b) != depth+2 {
		t.Fatalf("pool holds %d buffers, want at most %d", len(b), depth+2)
	}
}
