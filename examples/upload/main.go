// Command upload sends a local audio file to podqa, waits for its report and prints the verdict.
//
//	PODQA_API_KEY=podqa_api_... PODQA_BASE_URL=http://127.0.0.1:8080 \
//	  go run ./examples/upload episode.wav
//
// The duration is measured from the file itself (WAV, MP3, FLAC, Ogg Vorbis, Opus, M4A, AAC);
// the MIME type comes from the file's extension unless -type says otherwise.
//
// No audio at hand? -sample FEED_URL first saves an episode of a podcast feed to FILE (the
// newest, or the one -episode N counts back), such as a feed the fake hosts, whose audio it
// synthesises:
//
//	go run ./examples/upload -sample http://127.0.0.1:8080/_feeds/…/feed.rss -episode 1 episode.mp3
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/podqa/podqa-go/client"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	contentType := flag.String("type", "", "the file's MIME type (default: from its extension)")
	timeout := flag.Duration("timeout", 30*time.Minute, "give up waiting after this long")
	sample := flag.String("sample", "", "first save an episode of this podcast feed to FILE (overwriting it)")
	episode := flag.Int("episode", 0, "with -sample: the episode, counting back from the newest (0)")
	flag.Parse()
	if flag.NArg() != 1 || *episode < 0 || (*episode > 0 && *sample == "") {
		fmt.Fprintln(os.Stderr, "usage: upload [-type MIME] [-timeout D] [-sample FEED_URL [-episode N]] FILE")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	if *sample != "" {
		if err := saveEpisode(ctx, os.Stdout, *sample, *episode, flag.Arg(0)); err != nil {
			fmt.Fprintln(os.Stderr, "upload: -sample:", err)
			os.Exit(1)
		}
	}
	if err := run(ctx, os.Stdout, flag.Arg(0), *contentType); err != nil {
		fmt.Fprintln(os.Stderr, "upload:", err)
		os.Exit(1)
	}
}

// audioTypes are the MIME types of podcast audio, for systems without a mime.types file.
var audioTypes = map[string]string{
	".mp3": "audio/mpeg", ".wav": "audio/wav", ".flac": "audio/flac", ".m4a": "audio/mp4",
	".aac": "audio/aac", ".ogg": "audio/ogg", ".opus": "audio/ogg",
}

func run(ctx context.Context, out io.Writer, path, contentType string) error {
	if contentType == "" {
		ext := strings.ToLower(filepath.Ext(path))
		contentType = cmp.Or(mime.TypeByExtension(ext), audioTypes[ext])
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
	how := "given"
	if created.Measured {
		how = "measured"
	}
	fmt.Fprintf(out, "report %s created (%s) for %s of audio (%s), estimated credits %s\n", created.ID, created.Status, created.Duration, how, estimate)

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
