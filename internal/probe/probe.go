// Package probe learns an audio file's format, codec, sample rate, channel count and duration
// from its headers and framing, without decoding any audio.
//
// Probe reads its input once, forward only, through a fixed 64 KiB buffer, so its memory use
// does not grow with the input. It never seeks and never panics. The rules per format:
//
//   - WAV (RIFF/WAVE, RF64 and BW64): the fmt chunk gives rate, channels and block align; the
//     duration is the number of whole blocks in the data chunk divided by the rate. The data
//     chunk's declared size is used, capped at the bytes actually present (a truncated file
//     reports what it holds). A declared size of 0 or 0xFFFFFFFF (with no RF64 ds64 size)
//     means the data runs to the end of the input. PCM integer, IEEE float, A-law, µ-law and
//     WAVE_FORMAT_EXTENSIBLE with a PCM or float subformat are recognized; any other format tag
//     gets an empty Codec and a duration from the average byte rate.
//   - MP3 (MPEG-1, 2 and 2.5, Layers I, II and III): ID3v2 tags (with or without footer) are
//     skipped wherever they appear, as are an APEv2 tag with a header and a final 128-byte
//     ID3v1 tag. Frame headers are walked and their samples summed; locking onto the stream
//     needs two consecutive valid frame headers with the same version, layer and rate, and after
//     garbage the walk resyncs the same way; frames unlike the first locked one are garbage. A truncated final frame is not counted. A
//     Xing/Info or VBRI frame is metadata, not audio, and is not counted; its frame count is
//     ignored (the walk is the truth). When the Xing frame carries a LAME tag, the encoder
//     delay and padding it records are subtracted. Without an ID3v2 tag in front, input that
//     shows no lock within its first 64 KiB is ErrUnknownFormat.
//   - FLAC: the STREAMINFO block gives rate, channels and total samples. A total of 0
//     (unknown) is ErrMalformed; frames are not counted.
//   - Ogg: pages are walked (CRCs are not checked; garbage between pages is skipped). The first
//     logical stream whose beginning-of-stream packet is a Vorbis, Opus or Ogg FLAC
//     identification header is followed by its serial number; its last granule position,
//     minus the pre-skip for Opus (whose granule rate is always 48 kHz), divided by the rate is
//     the duration. A truncated final page is ignored. The walk stops at that stream's
//     end-of-stream page.
//   - MP4/M4A: boxes are walked forward, into moov and its tracks only; sample tables and
//     media data are skipped. The first sound track gives the codec (its sample entry), the
//     rate and channels (an AAC AudioSpecificConfig's, else the entry's) and the duration: its
//     edit list's, as ffprobe reports, else the media header's.
//   - ADTS (AAC, after ID3v2 tags too): frame headers are walked and counted, 1024 samples
//     each, so the duration is exact where ffprobe estimates it from the bit rate. Locking
//     needs two consecutive headers of one stream; other bytes are skipped; a truncated final
//     frame is not counted.
//
// Anything else is ErrUnknownFormat. A known format with broken framing is ErrMalformed,
// wrapped with detail. A read error of the underlying reader is returned wrapped as is.
package probe

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/podqa/podqa-go/internal/aacheader"
)

// Info is what Probe learns from an audio file's headers and framing.
type Info struct {
	// Format is ffprobe's format_name: "wav", "mp3", "flac", "ogg", "mov,mp4,m4a,3gp,3g2,mj2"
	// or "aac" (ADTS).
	Format string
	// Codec is ffprobe's codec_name: "pcm_u8", "pcm_s16le", "pcm_s24le", "pcm_s32le",
	// "pcm_s64le", "pcm_f32le", "pcm_f64le", "pcm_alaw", "pcm_mulaw", "mp1", "mp2", "mp3",
	// "flac", "vorbis", "opus" or "aac" (or another MP4 sample entry's codec: "alac", "ac3",
	// "eac3"); empty for a WAV format tag or MP4 sample entry Probe does not name.
	Codec string
	// Duration is the playing time, truncated to the nanosecond.
	Duration time.Duration
	// SampleRate is in samples per second per channel (48000 for Opus).
	SampleRate int
	// Channels is the number of channels.
	Channels int
}

var (
	// ErrUnknownFormat means the input is not in a format Probe knows (or is empty).
	ErrUnknownFormat = errors.New("probe: unknown audio format")
	// ErrMalformed means the input is in a known format but its headers or framing are broken
	// or truncated. Returned errors wrap it and add detail.
	ErrMalformed = errors.New("probe: malformed audio file")
)

// bufSize is the read buffer; it holds any Ogg page (at most 65307 bytes) and MPEG frame.
const bufSize = 1 << 16

// Probe reads r once, forward only, and reports the audio format, codec, sample rate, channel
// count and duration found in its headers and framing. See the package documentation for the
// rules per format.
func Probe(r io.Reader) (Info, error) {
	if r == nil {
		return Info{}, fmt.Errorf("%w: nil reader", ErrUnknownFormat)
	}
	rd := &reader{br: bufio.NewReaderSize(r, bufSize)}
	b, err := rd.peek(12)
	if err != nil {
		return Info{}, err
	}
	if len(b) == 0 {
		return Info{}, fmt.Errorf("%w: empty input", ErrUnknownFormat)
	}
	switch {
	case hasPrefix(b, "RIFF") || hasPrefix(b, "RF64") || hasPrefix(b, "BW64"):
		if len(b) < 12 {
			return Info{}, malformed("wav: truncated RIFF header (%d bytes)", len(b))
		}
		if string(b[8:12]) != "WAVE" {
			return Info{}, fmt.Errorf("%w: RIFF form %q is not WAVE", ErrUnknownFormat, b[8:12])
		}
		return probeWAV(rd, string(b[:4]) != "RIFF")
	case hasPrefix(b, "fLaC"):
		return probeFLAC(rd)
	case hasPrefix(b, "OggS"):
		return probeOgg(rd)
	case isMP4(b):
		return probeMP4(rd)
	case aacheader.IsADTSSync(b):
		return probeADTS(rd)
	case hasPrefix(b, "ID3"):
		for {
			n, err := id3v2Length(rd)
			if err != nil {
				return Info{}, err
			}
			if n == 0 {
				break
			}
			if _, err := rd.discard(n); err != nil {
				return Info{}, err
			}
		}
		b, err := rd.peek(4)
		if err != nil {
			return Info{}, err
		}
		if hasPrefix(b, "fLaC") {
			return probeFLAC(rd)
		}
		if aacheader.IsADTSSync(b) {
			return probeADTS(rd)
		}
		return probeMP3(rd, true)
	default:
		return probeMP3(rd, false)
	}
}

// reader wraps the buffered input; its methods turn read errors other than io.EOF into
// returned errors and io.EOF into short results.
type reader struct {
	br *bufio.Reader
}

// peek returns up to n buffered bytes (fewer only at end of input) without consuming them.
// n must not exceed bufSize.
func (r *reader) peek(n int) ([]byte, error) {
	b, err := r.br.Peek(n)
	if err != nil && !errors.Is(err, io.EOF) {
		return b, fmt.Errorf("probe: read: %w", err)
	}
	return b, nil
}

// discard consumes up to n bytes and reports how many it consumed (fewer only at end of
// input).
func (r *reader) discard(n int64) (int64, error) {
	var done int64
	for done < n {
		step := n - done
		if step > math.MaxInt32 {
			step = math.MaxInt32
		}
		k, err := r.br.Discard(int(step))
		done += int64(k)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return done, nil
			}
			return done, fmt.Errorf("probe: read: %w", err)
		}
	}
	return done, nil
}

// discardAll consumes the rest of the input and reports how many bytes it held.
func (r *reader) discardAll() (int64, error) {
	n, err := io.Copy(io.Discard, r.br)
	if err != nil {
		return n, fmt.Errorf("probe: read: %w", err)
	}
	return n, nil
}

func hasPrefix(b []byte, s string) bool {
	return len(b) >= len(s) && string(b[:len(s)]) == s
}

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, args...)...)
}

// samplesDuration converts n samples at rate per second to a Duration, truncating.
func samplesDuration(n, rate uint64) (time.Duration, error) {
	if rate == 0 {
		return 0, malformed("sample rate 0")
	}
	sec, rem := n/rate, n%rate
	if sec > uint64(math.MaxInt64-int64(time.Second))/uint64(time.Second) {
		return 0, malformed("duration of %d samples at %d Hz overflows", n, rate)
	}
	// rem < rate < 2^33, so rem*1e9 < 2^63.
	return time.Duration(sec)*time.Second + time.Duration(rem*uint64(time.Second)/rate), nil
}

func le16(b []byte) uint32 { return uint32(binary.LittleEndian.Uint16(b)) }
func le32(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }
func be32(b []byte) uint32 { return binary.BigEndian.Uint32(b) }
