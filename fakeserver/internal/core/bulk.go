package core

import (
	"math"
	"time"

	"github.com/google/uuid"
)

// MaxBulkReports bounds one SeedReports call, so that a typo cannot exhaust memory. It is the one
// bulk limit, for the Go API and the control call alike (control.openapi.json documents it as the
// maxItems of the call's reports).
const MaxBulkReports = 100_000

// The bounds of one seeded report: the one check of them is SeedReports', for the Go API and the
// control call alike (control.openapi.json documents them as the maximum of duration_s and
// complete_after_s).
const (
	// MaxSeededDuration bounds a seeded report's measured length, as the service's longest upload.
	MaxSeededDuration = 24 * time.Hour
	// MaxSeededCompleteAfter bounds how far ahead on the clock a seeded report completes: 366
	// days, so that a typo cannot park a timer beyond any test's horizon.
	MaxSeededCompleteAfter = 366 * 24 * time.Hour
)

// BulkReport is one report SeedReports creates: already measured, running, and finishing
// CompleteAfter after the clock's now.
type BulkReport struct {
	FileName      string
	Duration      time.Duration
	CompleteAfter time.Duration
}

// SeedReports creates reports in workspace ws, IN_PROGRESS from now, in the order given (so the
// last is the newest by created_at), each with a measurement of its Duration that passes the
// built-in checks; each completes at its CompleteAt through the ordinary completion (judged,
// charged, updated_at moved). It skips the download and measurement of audio, which makes
// thousands of finished reports cheap for tests of polling clients. Nothing is created unless
// every entry is valid: a refusal is a validation *Error naming the first bad entry.
func (c *Core) SeedReports(ws uuid.UUID, in []BulkReport) ([]Report, error) {
	if len(in) > MaxBulkReports {
		return nil, ErrValidation("at most %d reports can be seeded at once.", MaxBulkReports)
	}
	for i, b := range in {
		if err := checkBulkReport(i, b); err != nil {
			return nil, err
		}
	}
	now := c.clock.Now()
	c.mu.Lock()
	w := c.workspaces[ws]
	if w == nil {
		c.mu.Unlock()
		return nil, ErrNotFound("Workspace")
	}
	out := make([]Report, len(in))
	due := false
	for i, b := range in {
		started := now
		r := &Report{
			ID: c.rand.UUID(), Workspace: w.ID, Status: StatusInProgress, CreatedAt: now, UpdatedAt: now,
			StartedAt: &started, OriginalFilename: b.FileName, Personal: w.Type == Personal,
			Standard: c.standardForLocked(w, nil), Measurement: seededMeasurement(b),
			estimatedEnd: now.Add(b.CompleteAfter), Source: SourceSeeded,
		}
		c.insertReportLocked(r)
		r.Timeline = []StatusStep{{Status: StatusInProgress, At: r.CreatedAt}}
		c.noticeLocked(Notice{Kind: NoticeReportCreated, At: now, Workspace: r.Workspace, Report: r.ID, Source: r.Source, FileName: r.OriginalFilename})
		id := r.ID
		c.clock.At(r.estimatedEnd, func(now time.Time) { c.complete(id, now) })
		due = due || b.CompleteAfter == 0
		out[i] = *r
	}
	c.mu.Unlock()
	c.FlushNotices()
	if due {
		c.clock.RunDue() // finish at once what is due now, as the caller expects
	}
	return out, nil
}

// checkBulkReport is the one check of a seeded report's bounds; entry is its index in the call.
func checkBulkReport(entry int, b BulkReport) error {
	switch {
	case b.FileName == "":
		return ErrValidation("reports[%d]: file_name is required.", entry)
	case b.Duration <= 0 || b.Duration > MaxSeededDuration:
		return ErrValidation("reports[%d]: duration must be above 0 and at most 24 hours.", entry)
	case b.CompleteAfter < 0:
		return ErrValidation("reports[%d]: complete_after must not be negative.", entry)
	case b.CompleteAfter > MaxSeededCompleteAfter:
		return ErrValidation("reports[%d]: complete_after must be at most 366 days.", entry)
	}
	return nil
}

// seededMeasurement is a 48 kHz stereo WAV at the Podcast standard's target loudness and peak.
func seededMeasurement(b BulkReport) *Measurement {
	const sampleRate, channels = 48000, 2
	size := int64(math.Round(b.Duration.Seconds() * sampleRate * channels * 2))
	return &Measurement{
		Duration: b.Duration, Size: size + 44, Channels: channels, SampleRate: sampleRate,
		CodecName: "pcm_s16le", FormatName: "wav", IntegratedLUFS: -16, SamplePeakDB: -3, TruePeakDB: -2.5,
	}
}
