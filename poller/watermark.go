package poller

import (
	"fmt"
	"strings"
	"time"

	"github.com/podqa/podqa-go/client"
	"github.com/podqa/podqa-go/internal/errval"
)

// ErrNoWatermark is returned when a poll has no watermark to start from: the store holds none
// and neither WithStartWatermark nor WithStartTime gave one. The poller never starts from an
// empty watermark, which would hand every completed report of the workspace to the handler.
var ErrNoWatermark = errval.New("poller.ErrNoWatermark", "poller: no watermark: give the first one with WithStartWatermark or WithStartTime (an updated_at read from a report is safest)")

// ErrInvalidWatermark is wrapped by the errors about a watermark that is not an ISO-8601
// date-time with a zone.
var ErrInvalidWatermark = errval.New("poller.ErrInvalidWatermark", "poller: invalid watermark")

// NormalizeWatermark returns w in the API's fixed form, YYYY-MM-DDTHH:MM:SS.ffffff+00:00, the
// only form in which watermarks compare correctly as strings. It accepts any RFC 3339 date-time
// with `Z` or an offset (converted to UTC); digits past the microsecond are dropped, which moves
// the watermark back by less than a microsecond and so can only re-read, never skip. An empty w
// is ErrNoWatermark; a date-time without a zone is refused, since it names no instant.
func NormalizeWatermark(w string) (string, error) {
	t, err := parseWatermark(w)
	if err != nil {
		return "", err
	}
	return client.FormatTime(t), nil
}

// parseWatermark reads a watermark as an instant, truncated to the microsecond.
func parseWatermark(w string) (time.Time, error) {
	w = strings.TrimSpace(w)
	if w == "" {
		return time.Time{}, ErrNoWatermark
	}
	t, err := time.Parse(time.RFC3339Nano, w)
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: %q is not an RFC 3339 date-time with a zone (want the form 2026-01-05T09:00:00.000000+00:00)", ErrInvalidWatermark, w)
	}
	t = t.UTC().Truncate(time.Microsecond)
	if t.Year() < 1 || t.Year() > 9999 {
		return time.Time{}, fmt.Errorf("%w: %q is out of range", ErrInvalidWatermark, w)
	}
	return t, nil
}
