package audio

import (
	"errors"
	"fmt"
	"io"

	"github.com/podqa/podqa-go/fakeserver/internal/vorbisdec"
)

// Segmenting of Vorbis decoding. A segment closes at whichever limit comes first: its packets
// (options.segFrames), the samples they decode to, or their bytes.
const (
	vorbisSegmentValues = 1 << 18 // interleaved samples a segment decodes to, at most (plus one packet's)
	vorbisSegmentBytes  = 1 << 20 // packet bytes a segment holds, at most (plus one packet's)
)

// vorbisPacketCut is what a packet keeps of its output: n samples per channel are decoded,
// from..to of them kept (the start and end trimming of the granule positions).
type vorbisPacketCut struct{ n, from, to int }

// vorbisJob is one segment of audio packets for a worker.
type vorbisJob struct {
	warm    []byte // the last non-empty packet before the segment, decoded first, its output discarded
	packets [][]byte
	cuts    []vorbisPacketCut
}

type vorbisResult struct {
	pcm []float64 // interleaved, limited to ±1, trimmed
	// ends holds where each packet's samples end in pcm: the reader hands them out packet by
	// packet as vorbisStream.read does, so that the meter sees the very same blocks (its sums
	// can differ in the last bit when the blocks are cut elsewhere).
	ends []int
}

// measureVorbisSegments measures an Ogg Vorbis stream whose packets are decoded in segments by
// workers goroutines. A packet's output depends only on the packet before it (the overlap of
// that block's right half, whose length its mode gives), so a worker that decodes the last
// non-empty packet before its segment first, discarding the output, then produces exactly
// what a sequential decode produces. The walker reads the packets in order and works out
// every packet's output length and trimming from the block sizes alone, as vorbisStream.read
// does from the decoded output.
//
// Memory does not depend on the duration (see segments): at most 2·workers segments wait in
// order (being decoded or decoded and not yet read: with as many as the workers, a trace showed
// the workers idle a third of the time, waiting for the meter to take a segment), one is being read and one
// filled by the walker, and sample buffers are reused. A segment holds at most
// vorbisSegmentValues+4096·channels float64s (2.2 MB for stereo, 2.4 MB for 8 channels) and
// vorbisSegmentBytes plus one packet of input (a packet is at most 16 MiB; 128 packets of q4
// stereo speech are about 50 KB). With 2 workers: at most 6 segments, 13 MB of samples for
// stereo (14 MB for 8 channels) plus their packets.
func measureVorbisSegments(in *source, vs *vorbisStream, o options) (MeterResult, error) {
	rd, stop := vorbisSegments(vs, o.workers, o.segFrames)
	res, err := measurePCM(in, vs.dec.Info().SampleRate, vs.ch, vorbisWeights(vs.ch), rd.read)
	if serr := stop(); err == nil {
		err = serr
	}
	return res, err
}

// vorbisSegments starts the walker and workers goroutines decoding segments of at most
// segPackets packets. The samples come out of the reader in order; stop ends the goroutines
// (the reader need not have reached the end) and returns the walker's error.
func vorbisSegments(vs *vorbisStream, workers, segPackets int) (*vorbisPCM, func() error) {
	ch := vs.ch
	info := vs.dec.Info()
	depth := 2 * workers
	free := newSegmentBuffers[float64](depth)
	decs := make([]*vorbisdec.Decoder, workers) // each worker's, made on its first segment
	segs := startSegments("Vorbis", workers, depth,
		func(submit func(*vorbisJob) bool) error { return vs.walk(ch, segPackets, submit) },
		func(w int, j *vorbisJob) (vorbisResult, error) {
			if decs[w] == nil {
				d, err := vorbisdec.NewDecoder(info, vs.setupHeader)
				if err != nil {
					return vorbisResult{}, vorbisErr(err)
				}
				decs[w] = d
			}
			return decodeVorbisSegment(decs[w], j, ch, free)
		})
	return &vorbisPCM{segs: segs, free: free, ch: ch}, segs.stop
}

// walk reads the audio packets to the end of the stream and hands segments of them to submit,
// which returns false when the consumer has gone.
func (v *vorbisStream) walk(ch, maxPackets int, submit func(*vorbisJob) bool) error {
	if err := v.start(); err != nil {
		return err
	}
	var warm, last []byte // the last non-empty packet before the segment, and before this one
	j := &vorbisJob{}
	values, bytes := 0, 0
	flush := func() bool {
		if len(j.packets) == 0 {
			return true
		}
		ok := submit(j)
		warm = last
		j = &vorbisJob{warm: warm}
		values, bytes = 0, 0
		return ok
	}
	prev := 0
	for {
		p, lastPage, err := v.nextPacket()
		if errors.Is(err, io.EOF) {
			break
		}
		bs := 0
		if err == nil {
			if bs, err = v.dec.BlockSize(p); err != nil {
				err = vorbisErr(err)
			}
		}
		if err != nil {
			flush() // the samples before the error
			return err
		}
		n := 0
		if bs > 0 {
			if prev > 0 {
				n = prev/4 + bs/4
			}
			prev = bs
			last = p
		}
		from, to := 0, n
		if v.skip > 0 {
			from = int(min(v.skip, int64(n)))
			v.skip -= int64(from)
		}
		if g := v.op.granule; lastPage && g >= 0 && v.pos+int64(n) > g {
			to = int(max(g-v.pos, int64(from)))
		}
		v.pos += int64(n)
		j.packets = append(j.packets, p)
		j.cuts = append(j.cuts, vorbisPacketCut{n: n, from: from, to: to})
		values += (to - from) * ch
		bytes += len(p)
		if (len(j.packets) >= maxPackets || values >= vorbisSegmentValues || bytes >= vorbisSegmentBytes) && !flush() {
			return nil
		}
	}
	flush()
	return nil
}

// decodeVorbisSegment decodes a job's packets with dec, after its warm-up packet, in a buffer
// from free.
func decodeVorbisSegment(dec *vorbisdec.Decoder, j *vorbisJob, ch int, free segmentBuffers[float64]) (res vorbisResult, _ error) {
	dec.Reset()
	if j.warm != nil {
		if _, err := dec.Decode(j.warm); err != nil {
			return vorbisResult{}, vorbisErr(err)
		}
	}
	need := 0
	for _, c := range j.cuts {
		need += (c.to - c.from) * ch
	}
	res.pcm = free.get(need)
	res.ends = make([]int, 0, len(j.packets))
	for i, p := range j.packets {
		out, err := dec.Decode(p)
		if err != nil {
			return vorbisResult{}, vorbisErr(err)
		}
		c := j.cuts[i]
		if len(out[0]) != c.n {
			return vorbisResult{}, fmt.Errorf("%w: Vorbis packet decoded to %d samples, its block sizes give %d", ErrMalformed, len(out[0]), c.n)
		}
		res.pcm = appendInterleaved(res.pcm, out, c.from, c.to)
		res.ends = append(res.ends, len(res.pcm))
	}
	return res, nil
}

// vorbisPCM hands out the samples of decoded segments in order, at most one packet's at a time.
type vorbisPCM struct {
	segs *segments[*vorbisJob, vorbisResult]
	free segmentBuffers[float64]
	ch   int
	buf  []float64
	ends []int // where the packets of buf end, those not yet handed out
	at   int
}

func (p *vorbisPCM) read(dst []float64) (int, error) {
	for len(p.ends) > 0 && p.at == p.ends[0] {
		p.ends = p.ends[1:]
	}
	for len(p.ends) == 0 {
		_, r, err := p.segs.next()
		if err != nil {
			return 0, err // io.EOF, or the walk's error, after the last segment
		}
		p.free.put(p.buf) // the finished segment's buffer serves a later one
		p.buf, p.at = r.pcm, 0
		p.ends = r.ends
		for len(p.ends) > 0 && p.ends[0] == 0 {
			p.ends = p.ends[1:]
		}
	}
	n := copy(dst[:len(dst)/p.ch*p.ch], p.buf[p.at:p.ends[0]])
	p.at += n
	return n, nil
}
