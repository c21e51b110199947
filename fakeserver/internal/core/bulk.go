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

// BulkReport is one report SeedReports creates: already measured, running, and finishing at
// CompleteAt (an instant of the clock, not before now).
type BulkReport struct {
	FileName   string
	Duration   time.Duration
	CompleteAt time.Time
}

// SeedReports creates reports in workspace ws, IN_PROGRESS from now, in the order given (so the
// last is the newest by created_at), each with a measurement of its Duration that passes the
// built-in checks; each completes at its CompleteAt through the ordinary completion (judged,
// charged, updated_at moved). It skips the download and measurement of audio, which makes
// thousands of finished reports cheap for tests of polling clients. Nothing is created unless
// every entry is valid.
func (c *Core) SeedReports(ws uuid.UUID, in []BulkReport) ([]Report, error) {
	if len(in) > MaxBulkReports {
		return nil, ErrValidation("at most %d reports can be seeded at once.", MaxBulkReports)
	}
	now := c.clock.Now()
	for i, b := range in {
		switch {
		case b.FileName == "":
			return nil, ErrValidation("reports[%d]: file_name is required.", i)
		case b.Duration <= 0 || b.Duration > 24*time.Hour:
			return nil, ErrValidation("reports[%d]: duration must be above 0 and at most 24 hours.", i)
		case b.CompleteAt.Before(now) && c.clock.Manual():
			// Only a manual clock refuses: a real clock moves on between the caller's reading
			// of it and this one, so there a complete_at just past is due at once.
			return nil, ErrValidation("reports[%d]: complete_at must not be before the clock's now.", i)
		}
	}
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
			estimatedEnd: b.CompleteAt, Source: SourceSeeded,
		}
		c.insertReportLocked(r)
		r.Timeline = []StatusStep{{Status: StatusInProgress, At: r.CreatedAt}}
		c.noticeLocked(Notice{Kind: NoticeReportCreated, At: now, Workspace: r.Workspace, Report: r.ID, Source: r.Source, FileName: r.OriginalFilename})
		id := r.ID
		c.clock.At(b.CompleteAt, func(now time.Time) { c.complete(id, now) })
		due = due || !b.CompleteAt.After(now)
		out[i] = *r
	}
	c.mu.Unlock()
	c.FlushNotices()
	if due {
		c.clock.RunDue() // finish at once what is due now, as the caller expects
	}
	return out, nil
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
