package views

import "github.com/podqa/podqa-go/fakeserver/internal/core"

// recordedView is out with the parts of a report imported as recorded, as they were recorded:
// REST's body and GraphQL's JSON-text fields carry the same bytes, never worked out again.
func recordedView(out Report, rec *core.Recorded) Report {
	out.CreditsCharged = rec.CreditsCharged
	out.Stats, out.Results, out.FileInfo = rec.Stats, rec.Results, rec.FileInfo
	out.Metadata, out.CoverImage = rec.Metadata, rec.CoverImage
	return out
}
