package core

import (
	"slices"

	"github.com/google/uuid"
)

// ReportCover returns the cover picture of a finished report's audio, whatever the workspace:
// the service serves cover images at unguessable URLs without credentials. ok is false when
// there is no such report, it is not COMPLETE, or its audio carries no cover.
func (c *Core) ReportCover(id uuid.UUID) (Cover, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	r, ok := c.reports[id]
	if !ok || r.Status != StatusComplete || r.Measurement == nil || r.Measurement.Tags == nil || r.Measurement.Tags.Cover == nil {
		return Cover{}, false
	}
	cv := *r.Measurement.Tags.Cover
	cv.Data = slices.Clone(cv.Data)
	return cv, true
}
