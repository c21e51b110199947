package hosted

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"
)

// Hosted audio is keyless, so what a download may cost is bounded here: at most
// MaxConcurrentEncodes renderings run at once (a download that needs one waits for a slot, and
// past maxEncodeQueue waiting it is answered 503), one per episode at a time; concurrent first
// downloads of an episode the cache can hold share one rendering, which stops when no download
// follows it any more; a download that averages less than minDownloadRate after its first
// minute spent writing to its client is cut.

// MaxConcurrentEncodes is how many hosted episodes the host renders at once.
const MaxConcurrentEncodes = 2

// maxEncodeQueue is how many downloads may wait for a rendering slot; past it they are refused.
const maxEncodeQueue = 64

// BusyRetryAfter is the Retry-After of a download refused because too many wait for a slot.
const BusyRetryAfter = 5 * time.Second

// errBusy refuses a download when too many wait for a rendering slot.
var errBusy = errors.New("hosted: too many downloads wait for a rendering")

// errRenderGone ends a rendering no download follows any more.
var errRenderGone = errors.New("hosted: no download follows this rendering")

// Download pacing: a download is written in chunks of downloadChunk bytes and must average at
// least minDownloadRate bytes a second after its first downloadGrace.
const (
	downloadChunk   = 32 << 10
	minDownloadRate = 8 << 10
	downloadGrace   = time.Minute
)

// errTooSlow cuts a download that falls under minDownloadRate.
var errTooSlow = errors.New("hosted: the download is slower than the minimum rate")

// acquire takes a rendering slot, waiting while ctx lasts.
func (h *Host) acquire(ctx context.Context) error {
	select {
	case h.slots <- struct{}{}:
		h.encodes.Add(1)
		return nil
	default:
	}
	if h.queued.Add(1) > maxEncodeQueue {
		h.queued.Add(-1)
		return errBusy
	}
	defer h.queued.Add(-1)
	select {
	case h.slots <- struct{}{}:
		h.encodes.Add(1)
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (h *Host) releaseSlot() {
	h.encodes.Add(-1)
	<-h.slots
}

// Encodes returns how many renderings run now (at most MaxConcurrentEncodes).
func (h *Host) Encodes() int64 { return h.encodes.Load() }

// RenderBuffered returns the bytes that shared renderings in flight hold.
func (h *Host) RenderBuffered() int64 {
	h.renderMu.Lock()
	defer h.renderMu.Unlock()
	var n int64
	for _, rd := range h.renders {
		rd.mu.Lock()
		n += int64(len(rd.buf))
		rd.mu.Unlock()
	}
	return n
}

// render is a rendering shared by the downloads that follow it, kept whole (its audio fits
// the cache) so that each follows at its own pace.
type render struct {
	key     audioKey
	mu      sync.Mutex
	cond    *sync.Cond
	buf     []byte
	done    bool
	err     error
	readers int
	cancel  context.CancelFunc
}

// writeAudio writes an episode's audio to w for a download whose context is ctx: from the cache
// when it holds it, else following the episode's shared rendering when the cache can hold it,
// else rendered for this download alone.
func (h *Host) writeAudio(ctx context.Context, w io.Writer, ep *episode) error {
	if h.cache == nil || ep.length > h.cache.max {
		return h.streamed(ctx, w, ep)
	}
	k := audioKeyOf(ep.Episode)
	if data, release, ok := h.cache.get(k); ok {
		defer release()
		return writeChunks(w, data)
	}
	for {
		rd, err := h.joinRender(ctx, k, ep)
		if err != nil {
			return err
		}
		if rd != nil {
			return h.follow(ctx, w, rd)
		}
		// Rendered while this download waited for a slot.
		if data, release, ok := h.cache.peek(k); ok {
			defer release()
			return writeChunks(w, data)
		}
	}
}

// joinRender follows the episode's rendering in flight, or starts one once a slot is free. It
// returns nil, nil when the audio was cached while it waited.
func (h *Host) joinRender(ctx context.Context, k audioKey, ep *episode) (*render, error) {
	for {
		if rd := h.joinInFlight(k); rd != nil {
			return rd, nil
		}
		if err := h.acquire(ctx); err != nil {
			return nil, err
		}
		if _, release, ok := h.cache.peek(k); ok {
			release()
			h.releaseSlot()
			return nil, nil
		}
		h.renderMu.Lock()
		if h.renders[k] != nil {
			h.renderMu.Unlock()
			h.releaseSlot()
			continue
		}
		rctx, cancel := context.WithCancel(context.Background())
		rd := &render{key: k, readers: 1, cancel: cancel, buf: make([]byte, 0, ep.length)}
		rd.cond = sync.NewCond(&rd.mu)
		if h.renders == nil {
			h.renders = map[audioKey]*render{}
		}
		h.renders[k] = rd
		h.renderMu.Unlock()
		go h.run(rctx, rd, ep)
		return rd, nil
	}
}

func (h *Host) joinInFlight(k audioKey) *render {
	h.renderMu.Lock()
	defer h.renderMu.Unlock()
	rd := h.renders[k]
	if rd != nil {
		rd.mu.Lock()
		rd.readers++
		rd.mu.Unlock()
	}
	return rd
}

// run renders into rd, keeps the audio in the cache when it is whole and frees the slot.
func (h *Host) run(ctx context.Context, rd *render, ep *episode) {
	defer h.releaseSlot()
	defer rd.cancel()
	err := h.synthesize(&renderWriter{ctx: ctx, rd: rd}, ep.Episode)
	if err == nil && int64(len(rd.buf)) != ep.length {
		err = errors.New("hosted: the rendering's length is not the episode's")
	}
	if err != nil && !errors.Is(err, errRenderGone) {
		h.log.Error("hosted audio synthesis failed", "audio_url", ep.audioURL, "err", err)
	}
	if err == nil {
		h.cache.put(rd.key, rd.buf) // appends are done: buf no longer changes
	}
	rd.mu.Lock()
	rd.done, rd.err = true, err
	rd.cond.Broadcast()
	rd.mu.Unlock()
	h.renderMu.Lock()
	if h.renders[rd.key] == rd {
		delete(h.renders, rd.key)
	}
	h.renderMu.Unlock()
}

// renderWriter appends a rendering's bytes to its buffer and wakes its followers; it fails once
// no download follows the rendering.
type renderWriter struct {
	ctx context.Context
	rd  *render
}

func (w *renderWriter) Write(p []byte) (int, error) {
	if w.ctx.Err() != nil {
		return 0, errRenderGone
	}
	w.rd.mu.Lock()
	w.rd.buf = append(w.rd.buf, p...)
	w.rd.cond.Broadcast()
	w.rd.mu.Unlock()
	return len(p), nil
}

// follow writes rd's bytes to w as they come; the last download to leave an unfinished
// rendering stops it.
func (h *Host) follow(ctx context.Context, w io.Writer, rd *render) error {
	defer h.leave(rd)
	stop := context.AfterFunc(ctx, func() {
		rd.mu.Lock()
		rd.cond.Broadcast()
		rd.mu.Unlock()
	})
	defer stop()
	sent := 0
	for {
		rd.mu.Lock()
		for len(rd.buf) == sent && !rd.done && ctx.Err() == nil {
			rd.cond.Wait()
		}
		data, done, err := rd.buf[sent:], rd.done, rd.err
		rd.mu.Unlock()
		switch {
		case len(data) > 0:
			if err := writeChunks(w, data); err != nil {
				return err
			}
			sent += len(data)
		case done:
			return err
		default:
			return ctx.Err()
		}
	}
}

func (h *Host) leave(rd *render) {
	h.renderMu.Lock()
	defer h.renderMu.Unlock()
	rd.mu.Lock()
	defer rd.mu.Unlock()
	if rd.readers--; rd.readers == 0 && !rd.done {
		if h.renders[rd.key] == rd {
			delete(h.renders, rd.key)
		}
		rd.cancel()
	}
}

// streamed renders an episode too long for the cache for this download alone, once a slot is
// free and no other download renders the same episode.
func (h *Host) streamed(ctx context.Context, w io.Writer, ep *episode) error {
	k := audioKeyOf(ep.Episode)
	for {
		h.renderMu.Lock()
		busy, ok := h.streaming[k]
		if !ok {
			busy = make(chan struct{})
			if h.streaming == nil {
				h.streaming = map[audioKey]chan struct{}{}
			}
			h.streaming[k] = busy
		}
		h.renderMu.Unlock()
		if !ok {
			break
		}
		select {
		case <-busy:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	defer func() {
		h.renderMu.Lock()
		close(h.streaming[k])
		delete(h.streaming, k)
		h.renderMu.Unlock()
	}()
	if err := h.acquire(ctx); err != nil {
		return err
	}
	defer h.releaseSlot()
	return h.synthesize(&ctxWriter{ctx: ctx, w: w}, ep.Episode)
}

// ctxWriter fails once its download's context ends, so that a rendering stops with its client.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (w *ctxWriter) Write(p []byte) (int, error) {
	if err := w.ctx.Err(); err != nil {
		return 0, err
	}
	return writeChunksN(w.w, p)
}

func writeChunks(w io.Writer, data []byte) error {
	_, err := writeChunksN(w, data)
	return err
}

// writeChunksN writes data in chunks of downloadChunk, so that each write of a slow reader's
// download is bounded (the server's stall deadline is per write).
func writeChunksN(w io.Writer, data []byte) (int, error) {
	done := 0
	for done < len(data) {
		n, err := w.Write(data[done:min(len(data), done+downloadChunk)])
		done += n
		if err != nil {
			return done, err
		}
	}
	return done, nil
}

// pacedWriter is a download's writer: it cuts a download that averages less than
// minDownloadRate after downloadGrace. Both are counted in the time the download spent
// writing to its client, not since it began, so that the host's own rendering (slow on a
// loaded machine, or waiting for a slot) never counts against the client.
type pacedWriter struct {
	w       io.Writer
	now     func() time.Time
	writing time.Duration // spent in writes to the client
	written int64
}

func (p *pacedWriter) Write(b []byte) (int, error) {
	if p.writing > downloadGrace && p.written < int64((p.writing-downloadGrace).Seconds()*minDownloadRate) {
		return 0, errTooSlow
	}
	began := p.now()
	n, err := p.w.Write(b)
	p.writing += p.now().Sub(began)
	p.written += int64(n)
	return n, err
}
