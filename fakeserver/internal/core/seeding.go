package core

import (
	"fmt"
	"time"
)

// The report calls of the Go API (fakeserver's api_reports.go) and the control API
// (internal/control's reports.go) as both take them: ids as sent, read by the id rule.

// DefaultSeededDuration is a seeded report's measured length when its entry leaves it 0.
const DefaultSeededDuration = 10 * time.Minute

// SeedReportsIn is SeedReports in the workspace workspaceID names, each entry's zero fields
// given their defaults first: the file name seeded-N.wav (N from 1), DefaultSeededDuration.
// Server.SeedReports and POST /_fake/workspaces/{id}/reports both.
func (c *Core) SeedReportsIn(workspaceID string, in []BulkReport) ([]Report, error) {
	ws, err := ParseID(workspaceID, "Workspace")
	if err != nil {
		return nil, err
	}
	filled := make([]BulkReport, len(in))
	for i, b := range in {
		if b.FileName == "" {
			b.FileName = fmt.Sprintf("seeded-%d.wav", i+1)
		}
		if b.Duration == 0 {
			b.Duration = DefaultSeededDuration
		}
		filled[i] = b
	}
	return c.SeedReports(ws, filled)
}

// SwitchAutomatedReporting is SetAutomatedReporting of the series seriesID names:
// Server.SetAutomatedReporting and PUT /_fake/series/{id}/automated-reporting.
func (c *Core) SwitchAutomatedReporting(seriesID string, on bool) (Series, error) {
	id, err := ParseID(seriesID, "Series")
	if err != nil {
		return Series{}, err
	}
	return c.SetAutomatedReporting(id, on)
}
