// Command upload sends a local audio file to podqa, waits for its report and prints the verdict.
//
//	PODQA_API_KEY=podqa_api_... PODQA_BASE_URL=http://127.0.0.1:8080 \
//	  go run ./examples/upload episode.wav
//
// The duration is measured from the file itself (WAV, MP3, FLAC, Ogg Vorbis, Opus); the MIME type
// comes from the file's extension unless -type says otherwise.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/podqa/podqa-go/client"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	contentType := flag.String("type", "", "the file's MIME type (default: from its extension)")
	timeout := flag.Duration("timeout", 30*time.Minute, "give up waiting after this long")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: upload [-type MIME] [-timeout D] FILE")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	if err := run(ctx, os.Stdout, flag.Arg(0), *contentType); err != nil {
		fmt.Fprintln(os.Stderr, "upload:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer, path, contentType string) error {
	if contentType == "" {
		contentType = mime.TypeByExtension(filepath.Ext(path))
		if contentType == "" {
			return fmt.Errorf("cannot tell the MIME type of %s; pass -type", path)
		}
	}
	var opts []client.Option
	if base := os.Getenv("PODQA_BASE_URL"); base != "" {
		opts = append(opts, client.WithBaseURL(base))
	}
	c, err := client.New(os.Getenv("PODQA_API_KEY"), opts...)
	if err != nil {
		return err
	}

	// UploadFile reserves an upload, PUTs the bytes to the signed URL and creates the report.
	created, err := c.UploadFile(ctx, path, client.UploadParams{FileName: filepath.Base(path), ContentType: contentType})
	switch {
	case errors.Is(err, client.ErrUnknownDuration):
		return fmt.Errorf("cannot measure the length of %s: %w", path, err)
	case errors.Is(err, client.ErrInsufficientCredits):
		return errors.New("not enough credits for this file")
	case err != nil:
		return err
	}
	estimate := "unknown"
	if created.EstimatedCredits != nil {
		estimate = fmt.Sprint(*created.EstimatedCredits)
	}
	fmt.Fprintf(out, "report %s created (%s), estimated credits %s\n", created.ID, created.Status, estimate)

	report, err := c.WaitForReport(ctx, created.ID)
	if err != nil {
		return err
	}
	if report.Status != client.StatusComplete {
		return fmt.Errorf("the report ended %s", report.Status)
	}
	verdict := "FAILED"
	if report.Passed() {
		verdict = "PASSED"
	}
	fmt.Fprintf(out, "%s: %s, credits charged %s\n", report.Name, verdict, report.CreditsCharged)
	for _, r := range report.Results {
		if v, ok := r.Float(); ok {
			fmt.Fprintf(out, "  %-20s %-4s %10.2f %s\n", r.Name, r.Status, v, r.MeasurementUnit)
		} else {
			fmt.Fprintf(out, "  %-20s %-4s\n", r.Name, r.Status)
		}
	}
	return nil
}
