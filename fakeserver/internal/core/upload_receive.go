package core

import (
	"bytes"
	"errors"
	"io"
	"time"

	"github.com/google/uuid"
)

// The pace of an upload's body. A floor rate on a socket is wall-clock by nature, so it is
// counted on the wall clock (or the clock a test gives, see Core.uploadNow), in the time spent
// waiting for the client's bytes, as hosted audio counts the time spent writing to its client.
const (
	// MinUploadRate is the slowest an upload may average, in bytes a second, once past
	// UploadGrace: a body that arrives slower is cut, so that a trickle cannot hold its
	// connection, its buffer and its share of the budget for hours.
	MinUploadRate = 8 << 10
	// UploadGrace is how long an upload may take before MinUploadRate applies.
	UploadGrace = time.Minute
)

// Chunks an upload is read into: each is allocated, and counted against the budget and the
// workspace's share, just before its bytes are read; a chunk is twice the one before, from
// uploadChunkMin up to uploadChunkMax. An upload therefore holds beyond what has arrived at most
// uploadChunkMax bytes, and never more than it has received plus uploadChunkMin, whatever
// length it declares; and it is never copied into one buffer.
const (
	uploadChunkMin = 16 << 10
	uploadChunkMax = 256 << 10
)

// errUploadTooSlow cuts an upload that falls under MinUploadRate.
var errUploadTooSlow = errors.New("the upload is slower than the minimum rate")

// uploadAudio is an upload's bytes in the chunks they were read in.
type uploadAudio [][]byte

// size is the number of bytes the chunks hold.
func (a uploadAudio) size() int64 {
	var n int64
	for _, b := range a {
		n += int64(len(b))
	}
	return n
}

// reader reads the chunks in order.
func (a uploadAudio) reader() io.Reader {
	if len(a) == 1 {
		return bytes.NewReader(a[0])
	}
	rs := make([]io.Reader, len(a))
	for i, b := range a {
		rs[i] = bytes.NewReader(b)
	}
	return io.MultiReader(rs...)
}

// ReceiveUpload reads the body of a PUT to reservation id, declared to be declared bytes (its
// Content-Length, at least 1 and at most MaxUploadBytes), and keeps it as the reservation's
// audio. The budget and the workspace's share are taken as the bytes arrive, chunk by chunk,
// never from the declared length: a PUT that could not fit now is refused before anything is
// read, and one that stops fitting while it is read (other uploads took the room) is refused
// then. A body slower than MinUploadRate after UploadGrace is cut. Whatever the refusal, the
// bytes read are given back and the reservation keeps the audio it had.
func (c *Core) ReceiveUpload(id uuid.UUID, body io.Reader, declared int64) error {
	first := min(declared, uploadChunkMin)
	// Refused now when the whole could not fit: no read is worth starting. Nothing is taken.
	if err := c.mayHold(id, declared); err != nil {
		return err
	}
	claim, err := c.claimUpload(id, 0)
	if err != nil {
		return err
	}
	in := &pacedReader{r: body, now: c.uploadNow}
	var audio uploadAudio
	var got int64
	for chunk := first; got < declared; chunk = min(2*chunk, uploadChunkMax) {
		n := min(chunk, declared-got)
		if err := c.growUpload(&claim, n); err != nil {
			c.releaseUpload(claim)
			return err
		}
		buf := make([]byte, n)
		read, err := io.ReadFull(in, buf)
		got += int64(read)
		if err != nil {
			c.releaseUpload(claim)
			if errors.Is(err, errUploadTooSlow) {
				return ErrValidation("The upload was cut after %d of its %d bytes: it arrived slower than %d bytes a second after its first %v, the slowest the fake accepts. PUT the file again.",
					got, declared, MinUploadRate, UploadGrace)
			}
			return ErrValidation("The upload ended after %d of its %d bytes.", got, declared)
		}
		audio = append(audio, buf)
	}
	// A reset while the body was read voids the claim: the bytes never reach the new state.
	return c.storeClaimedUpload(claim, audio)
}

// mayHold refuses, as growLocked would, an upload of n bytes to reservation id that the
// workspace's share or the budget could not hold now; it takes nothing.
func (c *Core) mayHold(id uuid.UUID, n int64) error {
	c.mu.RLock()
	defer c.mu.RUnlock()
	r, ok := c.reservations[id]
	if !ok {
		return ErrNotFound("Upload")
	}
	return c.refusalLocked(&uploadClaim{id: id, ws: r.Workspace, gen: c.gen}, n)
}

// pacedReader is an upload's body: it cuts a body that averages less than MinUploadRate after
// UploadGrace, both counted in the time spent in the body's reads, so that the fake's own work
// between reads never counts against the client.
type pacedReader struct {
	r       io.Reader
	now     func() time.Time
	reading time.Duration // spent waiting for the client's bytes
	read    int64
}

func (p *pacedReader) Read(b []byte) (int, error) {
	if p.reading > UploadGrace && p.read < int64((p.reading-UploadGrace).Seconds()*MinUploadRate) {
		return 0, errUploadTooSlow
	}
	began := p.now()
	n, err := p.r.Read(b)
	p.reading += p.now().Sub(began)
	p.read += int64(n)
	return n, err
}
