package client

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/podqa/podqa-go/internal/errval"
	"github.com/podqa/podqa-go/internal/probe"
)

// UploadParams describes an audio file for Upload.
type UploadParams struct {
	// FileName is the file's name as its owner knows it; its extension tells the service how to
	// read the audio, and it becomes the report's original_filename.
	FileName string
	// ContentType is the file's MIME type, such as audio/mpeg. The upload URL is signed for it,
	// so the PUT carries exactly this Content-Type. Empty infers it from FileName's extension
	// (any case): .mp3 audio/mpeg, .m4a audio/mp4, .aac audio/aac, .wav audio/wav, .flac
	// audio/flac, .ogg and .opus audio/ogg (RFC 7845); another extension needs it given.
	ContentType string
	// Duration is the audio's length, sent as duration_ms and the basis of estimated_credits.
	// Zero measures it from the audio itself (WAV, MP3, FLAC, Ogg Vorbis and Opus, M4A and ADTS
	// AAC).
	Duration time.Duration
}

// ErrUnknownDuration is returned by Upload when Duration is zero and the audio's length cannot
// be read from the file; give Duration.
var ErrUnknownDuration = errval.New("client.ErrUnknownDuration", "podqa: the audio's duration could not be measured")

// Uploaded is what Upload returns: the created report, and the duration it sent.
type Uploaded struct {
	CreatedReport
	// Duration is the audio's length as sent in duration_ms (whole milliseconds, rounded up):
	// UploadParams.Duration when it was given, else what Upload measured from the audio.
	Duration time.Duration
	// Measured says that Upload measured Duration from the audio itself.
	Measured bool
}

// audioType is the MIME type Upload infers from a file name's extension (in lower case); ""
// when there is none.
func audioType(ext string) string {
	switch ext {
	case ".mp3":
		return "audio/mpeg"
	case ".m4a":
		return "audio/mp4"
	case ".aac":
		return "audio/aac"
	case ".wav":
		return "audio/wav"
	case ".flac":
		return "audio/flac"
	case ".ogg", ".opus":
		return "audio/ogg"
	}
	return ""
}

// Upload sends audio to the service and creates its report, the three steps of the upload flow
// in one call: it reserves an upload (POST /uploads), PUTs the bytes to the signed URL with
// exactly p.ContentType (given or inferred from the file name) and no service credentials, and creates the report (POST /reports with
// the reserved id). It returns the report's id, status and estimated_credits, and the duration
// it measured and sent.
//
// r is read twice (to measure and to send) when p.Duration is zero, and may be sent again when
// the PUT is retried: an io.ReadSeeker (such as an *os.File) is rewound; any other reader is
// first copied to a temporary file, so memory stays flat whatever the size.
func (c *Client) Upload(ctx context.Context, r io.Reader, p UploadParams) (*Uploaded, error) {
	if p.FileName == "" {
		return nil, fmt.Errorf("%w: FileName is required", ErrInvalidArgument)
	}
	if p.ContentType == "" {
		ext := strings.ToLower(filepath.Ext(p.FileName))
		if p.ContentType = audioType(ext); p.ContentType == "" {
			return nil, fmt.Errorf("%w: ContentType is required: it cannot be inferred from the extension %q of %q (known: .mp3, .m4a, .aac, .wav, .flac, .ogg, .opus)", ErrInvalidArgument, ext, p.FileName)
		}
	}
	rs, size, cleanup, err := seekable(r)
	if err != nil {
		return nil, fmt.Errorf("podqa: upload: %w", err)
	}
	defer cleanup()
	duration, measured := p.Duration, p.Duration <= 0
	if measured {
		info, err := probe.Probe(io.LimitReader(rs, size))
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrUnknownDuration, err)
		}
		duration = info.Duration
	}
	duration = (duration + time.Millisecond - 1).Truncate(time.Millisecond) // as sent: whole ms, rounded up
	res, err := c.ReserveUpload(ctx, p.FileName, p.ContentType, duration)
	if err != nil {
		return nil, err
	}
	if err := c.putAudio(ctx, res.UploadURL, p.ContentType, rs, size); err != nil {
		return nil, err
	}
	created, err := c.CreateReportFromUpload(ctx, res.ReportID, p.FileName, duration)
	if err != nil {
		return nil, err
	}
	return &Uploaded{CreatedReport: *created, Duration: duration, Measured: measured}, nil
}

// UploadFile is Upload of the file at path; FileName defaults to the path's base name.
func (c *Client) UploadFile(ctx context.Context, path string, p UploadParams) (*Uploaded, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("podqa: upload: %w", err)
	}
	defer f.Close()
	if p.FileName == "" {
		p.FileName = filepath.Base(path)
	}
	return c.Upload(ctx, f, p)
}

// seekable returns r as a rewindable reader with its size, copying it to a temporary file when
// it cannot seek.
func seekable(r io.Reader) (io.ReadSeeker, int64, func(), error) {
	if rs, ok := r.(io.ReadSeeker); ok {
		start, err := rs.Seek(0, io.SeekCurrent)
		if err == nil {
			end, err := rs.Seek(0, io.SeekEnd)
			if err == nil {
				_, err = rs.Seek(start, io.SeekStart)
			}
			if err == nil {
				return io.NewSectionReader(readerAt{rs}, start, end-start), end - start, func() {}, nil
			}
		}
	}
	tmp, err := os.CreateTemp("", "podqa-upload-*")
	if err != nil {
		return nil, 0, nil, err
	}
	cleanup := func() { tmp.Close(); os.Remove(tmp.Name()) }
	n, err := io.Copy(tmp, r)
	if err != nil {
		cleanup()
		return nil, 0, nil, err
	}
	return io.NewSectionReader(tmp, 0, n), n, cleanup, nil
}

// readerAt adapts an io.ReadSeeker for io.SectionReader. Upload reads sequentially, one read at
// a time, so seeking before each read is safe.
type readerAt struct{ rs io.ReadSeeker }

func (a readerAt) ReadAt(p []byte, off int64) (int, error) {
	if _, err := a.rs.Seek(off, io.SeekStart); err != nil {
		return 0, err
	}
	return io.ReadFull(a.rs, p)
}

// putAudio PUTs the audio to the signed URL, rewinding it for each attempt.
func (c *Client) putAudio(ctx context.Context, uploadURL, contentType string, body io.ReadSeeker, size int64) error {
	if _, err := body.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("podqa: upload: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, uploadURL, nil)
	if err != nil {
		return fmt.Errorf("podqa: upload: %w", err)
	}
	req.Body = readSeekCloser{body}
	req.ContentLength = size
	req.Header.Set("Content-Type", contentType)
	resp, st, err := c.send(ctx, kindSignedPut, req)
	if err != nil {
		return err
	}
	return st.decode(resp, nil)
}

// readSeekCloser lets go-retryablehttp see the body as an io.ReadSeeker, which it rewinds for
// each attempt.
type readSeekCloser struct{ io.ReadSeeker }

func (readSeekCloser) Close() error { return nil }

func redactQuery(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "[upload URL]"
	}
	u.RawQuery = ""
	return u.String()
}
