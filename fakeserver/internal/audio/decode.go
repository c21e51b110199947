package audio

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"runtime"
	"strings"
	"time"

	"github.com/podqa/podqa-go/fakeserver/internal/aacdec"
	"github.com/podqa/podqa-go/internal/mpegaudio"
)

// Errors of Measure for any format. Each returned error wraps one of them (WAV errors also wrap
// ErrNotWAV, ErrUnsupportedFormat or ErrMalformedWAV) and adds detail.
var (
	// ErrUnknownFormat means the input is none of the formats Measure reads (or is empty).
	ErrUnknownFormat = errors.New("audio: unknown audio format")
	// ErrMalformed means the input is in a known format but its structure or coded audio is
	// broken, so it cannot be decoded.
	ErrMalformed = errors.New("audio: malformed or corrupt audio")
	// ErrUnsupportedCodec means a known container holding a codec or variant this package
	// does not decode (for example MPEG layer I or II, or Ogg FLAC).
	ErrUnsupportedCodec = errors.New("audio: unsupported codec")
	// ErrOverCeiling means the audio was not measured, or decoding was stopped, because it
	// crossed a ceiling of Limits: more channels than MaxChannels, a sample rate above
	// MaxSampleRate, longer than MaxDuration, more samples than SamplesPerSecond allows.
	ErrOverCeiling = errors.New("audio: the file exceeds a ceiling of analysis")
)

// Limits are ceilings of what is decoded, so that the cost of a measurement is bounded by the
// file's declared shape whatever its size: a few kilobytes of FLAC frames of 65,535 constant
// samples can decode to an hour of 8-channel audio. Channels are checked before decoding starts,
// the duration after every block of samples, so a file crossing one stops within milliseconds
// with an error wrapping ErrOverCeiling. The zero value sets none.
type Limits struct {
	// MaxDuration is the longest decoded audio measured.
	MaxDuration time.Duration
	// MaxChannels is the most channels measured (at most MaxChannels of the package).
	MaxChannels int
	// MaxSpill is the most bytes of an MP4 file copied to temporary files: its media data when
	// it comes before the moov box that says where the samples are, and its long sample
	// tables. Past it the measurement stops with an error wrapping ErrOverCeiling.
	MaxSpill int64
	// MaxSampleRate is the highest sample rate measured, in Hz; it is checked before decoding.
	MaxSampleRate int
	// SamplesPerSecond bounds the samples decoded (frames times channels) by the audio's
	// duration: after d of audio at most SamplesPerSecond·d samples, or MinSamples if more,
	// are decoded. A file's work then follows its duration whatever its rate, channels or
	// coding: 96,000 holds every file to the samples of 48 kHz stereo.
	SamplesPerSecond int64
	// MinSamples is the samples decoded whatever the duration when SamplesPerSecond is set.
	MinSamples int64
}

// spillBudget is what Limits.MaxSpill leaves: everything when it sets none.
func (l Limits) spillBudget() int64 {
	if l.MaxSpill <= 0 {
		return math.MaxInt64
	}
	return l.MaxSpill
}

// WithLimits sets the ceilings of decoding (default none).
func WithLimits(l Limits) Option { return func(o *options) { o.limits = l } }

// check returns an error once ctx is done or the frames decoded so far cross a ceiling.
func (s *source) check(frames int64, rate, channels int) error {
	if err := s.ctx.Err(); err != nil {
		return fmt.Errorf("audio: analysis stopped after %v of audio: %w", framesDuration(frames, rate), err)
	}
	l := s.limits
	if l.MaxChannels > 0 && channels > l.MaxChannels {
		return fmt.Errorf("%w: %d channels; at most %d are measured", ErrOverCeiling, channels, l.MaxChannels)
	}
	if l.MaxSampleRate > 0 && rate > l.MaxSampleRate {
		return fmt.Errorf("%w: a sample rate of %d Hz; at most %d Hz is measured", ErrOverCeiling, rate, l.MaxSampleRate)
	}
	if l.SamplesPerSecond > 0 && rate > 0 {
		// frames·SamplesPerSecond/rate cannot overflow: frames stay under 2^40 (a day at 384
		// kHz is 2^35) and the allowance under 2^23.
		samples, allowed := frames*int64(channels), max(l.MinSamples, frames*l.SamplesPerSecond/int64(rate))
		if samples > allowed {
			return fmt.Errorf("%w: %v of %d Hz audio on %d channels decodes to %d samples; at most %d a second of audio (at least %d in all) are measured",
				ErrOverCeiling, framesDuration(frames, rate), rate, channels, samples, l.SamplesPerSecond, l.MinSamples)
		}
	}
	if l.MaxDuration > 0 && framesDuration(frames, rate) > l.MaxDuration {
		return fmt.Errorf("%w: the audio is longer than %v, the longest measured", ErrOverCeiling, l.MaxDuration)
	}
	return nil
}

// Option configures Measure.
type Option func(*options)

type options struct {
	limits    Limits
	nameHint  string
	workers   int
	segFrames int // MP3 frames per parallel segment (tests shorten it)
	opusSeg   int // Opus samples per parallel segment, 0 for opusSegmentSamples (tests shorten it)
}

// WithNameHint gives the file's name (or URL path); its extension breaks ties when the leading
// bytes do not identify the format, for example an MPEG audio stream that starts with garbage.
func WithNameHint(name string) Option { return func(o *options) { o.nameHint = name } }

// WithWorkers sets how many goroutines decode MP3, Ogg Vorbis and Ogg Opus segments in parallel
// (default GOMAXPROCS); with more than two, the meter also measures the channels of a stereo or
// multichannel stream on two goroutines. With two, it does so only while the decoder is ahead of the meter (WAV,
// FLAC): with a slower decoder, decoding and metering already fill both cores, and splitting
// the channels would cost 5 to 15% more CPU for no gain in time. One decodes and measures
// sequentially; the result is the same.
func WithWorkers(n int) Option { return func(o *options) { o.workers = n } }

// MeasureFile is Measure with a name hint: Measure(r, WithNameHint(nameHint)).
func MeasureFile(r io.Reader, nameHint string, opts ...Option) (Measurement, error) {
	return Measure(r, append([]Option{WithNameHint(nameHint)}, opts...)...)
}

// sniffSize is how many leading bytes Measure examines to recognise a format.
const sniffSize = 1 << 16

// Measure reads an audio file from r to its end and measures it, in memory that does not grow
// with the audio's duration. The format is recognised by its leading bytes: WAV (RIFF, RF64),
// MP3 (with or without ID3v2), FLAC, Ogg Vorbis, Ogg Opus, MP4/M4A and ADTS. See the package
// documentation for what each format gives. Errors wrap ErrUnknownFormat, ErrMalformed,
// ErrUnsupportedCodec or the reader's own error. Decoders never panic across this call: a panic inside one becomes ErrMalformed.
func Measure(r io.Reader, opts ...Option) (m Measurement, err error) {
	return MeasureContext(context.Background(), r, opts...)
}

// MeasureContext is Measure that stops, with an error wrapping ctx.Err(), once ctx is done:
// the context is checked while decoding, after every block of samples.
func MeasureContext(ctx context.Context, r io.Reader, opts ...Option) (m Measurement, err error) {
	o := options{workers: runtime.GOMAXPROCS(0), segFrames: mp3SegmentFrames}
	for _, opt := range opts {
		opt(&o)
	}
	o.workers = max(o.workers, 1)
	o.segFrames = max(o.segFrames, 1)
	if r == nil {
		return Measurement{}, fmt.Errorf("%w: nil reader", ErrUnknownFormat)
	}
	cr := &countingReader{r: r}
	br := bufio.NewReaderSize(cr, sniffSize)
	head, perr := br.Peek(sniffSize)
	if perr != nil && !errors.Is(perr, io.EOF) && !errors.Is(perr, bufio.ErrBufferFull) {
		return Measurement{}, perr
	}
	kind := sniff(head, o.nameHint)
	defer func() {
		if p := recover(); p != nil {
			m, err = Measurement{}, fmt.Errorf("%w: the %s decoder failed: %v", ErrMalformed, kind, p)
		}
	}()
	in := &source{r: br, counter: cr, ctx: ctx, limits: o.limits, split: o.workers > 2, spare: o.workers == 2}
	switch kind {
	case "wav":
		m, err = measureWAV(in)
	case "mp3":
		m, err = measureMP3(in, o)
	case "flac":
		m, err = measureFLAC(in)
	case "ogg":
		m, err = measureOgg(in, head, o)
	case "mp4":
		m, err = measureMP4(in)
	case "aac":
		m, err = measureADTS(in)
	default:
		return Measurement{}, fmt.Errorf("%w: starts with %q", ErrUnknownFormat, head[:min(len(head), 12)])
	}
	if err != nil {
		return Measurement{}, err
	}
	if m.Tags.Title != "" && m.Title == "" {
		m.Title = m.Tags.Title
	}
	return m, err
}

// source is the input of a format's measurer: buffered, counting the bytes read.
type source struct {
	r       *bufio.Reader
	counter *countingReader
	ctx     context.Context
	limits  Limits
	split   bool // the meter measures channels on two goroutines (WithWorkers above 2)
	spare   bool // it does while the decoder waits on it (WithWorkers 2; see measurePCM)
}

// Read reads from the buffered input.
func (s *source) Read(p []byte) (int, error) { return s.r.Read(p) }

// size is the number of bytes consumed so far (read from the input and not still buffered).
func (s *source) size() int64 { return s.counter.n - int64(s.r.Buffered()) }

// drain reads the input to its end so that Size counts every byte.
func (s *source) drain() error {
	_, err := io.Copy(io.Discard, s.r)
	return err
}

// sniff names the format of a file from its leading bytes, using the name's extension only to
// choose between formats the bytes leave open.
func sniff(head []byte, nameHint string) string {
	ext := strings.ToLower(path.Ext(nameHint))
	switch {
	case len(head) >= 12 && (string(head[:4]) == "RIFF" || string(head[:4]) == "RF64" || string(head[:4]) == "BW64") && string(head[8:12]) == "WAVE":
		return "wav"
	case bytes.HasPrefix(head, []byte("fLaC")):
		return "flac"
	case bytes.HasPrefix(head, []byte("OggS")):
		return "ogg"
	case len(head) >= 8 && isMP4Box(string(head[4:8])):
		return "mp4"
	case bytes.HasPrefix(head, []byte("ID3")):
		// An ID3v2 tag is MP3's convention; FLAC and ADTS files may carry one too.
		if n, ok := id3Size(head); ok && n+4 <= len(head) && string(head[n:n+4]) == "fLaC" {
			return "flac"
		} else if ok && n+2 <= len(head) && aacdec.IsADTSSync(head[n:]) {
			return "aac"
		}
		return "mp3"
	case aacdec.IsADTSSync(head):
		return "aac"
	}
	if off := findMPEGSync(head); off == 0 || (off > 0 && (ext == ".mp3" || ext == ".mpga" || ext == ".mpeg")) {
		return "mp3"
	}
	return ""
}

// isMP4Box reports whether a box type is one an MP4 file starts with.
func isMP4Box(t string) bool {
	switch t {
	case "ftyp", "moov", "mdat", "free", "skip", "wide", "pnot":
		return true
	}
	return false
}

// id3Size returns the total size of an ID3v2 tag at the start of b (header, body and footer).
func id3Size(b []byte) (int, bool) {
	if len(b) < 10 || string(b[:3]) != "ID3" || b[6]|b[7]|b[8]|b[9] >= 0x80 {
		return 0, false
	}
	n := 10 + (int(b[6])<<21 | int(b[7])<<14 | int(b[8])<<7 | int(b[9]))
	if b[5]&0x10 != 0 {
		n += 10
	}
	return n, true
}

// findMPEGSync returns the offset of the first pair of consecutive valid MPEG audio frame
// headers in b, or −1.
func findMPEGSync(b []byte) int {
	for i := 0; i+4 <= len(b); i++ {
		h, ok := mpegaudio.ParseHeader(b[i:])
		if !ok {
			continue
		}
		j := i + h.Size
		if j+4 > len(b) {
			if j == len(b) && i == 0 {
				return i
			}
			continue
		}
		if h2, ok := mpegaudio.ParseHeader(b[j:]); ok && h2.Version == h.Version && h2.Layer == h.Layer && h2.Rate == h.Rate {
			return i
		}
	}
	return -1
}
