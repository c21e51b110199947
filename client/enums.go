package client

// Status is the status of a report. New values can appear at any time: a Status the package
// does not know is kept as it arrived (IsKnown reports false) and is treated as not final.
type Status string

// Report statuses. The first three are transient, the next three final.
const (
	StatusPending    Status = "PENDING"     // accepted, not started
	StatusScheduled  Status = "SCHEDULED"   // queued for a worker
	StatusInProgress Status = "IN_PROGRESS" // being analysed
	StatusComplete   Status = "COMPLETE"    // finished; results available
	StatusFailed     Status = "FAILED"      // analysis did not complete
	StatusOutOfQuota Status = "OUT_OF_QUOTA"
	// StatusAwaitingReview is accepted by the status filter of ListReports but belongs to
	// enhancement jobs: no report ever has it.
	StatusAwaitingReview Status = "AWAITING_REVIEW"
)

// IsFinal reports whether s is one of the final statuses: COMPLETE, FAILED or OUT_OF_QUOTA.
// An unknown status is not final.
func (s Status) IsFinal() bool {
	switch s {
	case StatusComplete, StatusFailed, StatusOutOfQuota:
		return true
	}
	return false
}

// IsKnown reports whether s is one of the values the service documents (the six report
// statuses and the filter-only AWAITING_REVIEW).
func (s Status) IsKnown() bool {
	switch s {
	case StatusPending, StatusScheduled, StatusInProgress, StatusComplete, StatusFailed, StatusOutOfQuota, StatusAwaitingReview:
		return true
	}
	return false
}

// WorkspaceType says whether a workspace is a person's or an organisation's.
type WorkspaceType string

// Workspace types.
const (
	WorkspacePersonal     WorkspaceType = "personal"
	WorkspaceOrganisation WorkspaceType = "organisation"
)

// SeriesKind is the kind of a series. Only PODCAST exists today; others are planned.
type SeriesKind string

// SeriesPodcast is the only series kind today.
const SeriesPodcast SeriesKind = "PODCAST"

// CheckStatus is the outcome of one check.
type CheckStatus string

// Check outcomes.
const (
	CheckPass CheckStatus = "PASS"
	CheckFail CheckStatus = "FAIL"
)

// Severity says whether a failing check fails the report (required) or is only flagged (info).
type Severity string

// Severities.
const (
	SeverityRequired Severity = "required"
	SeverityInfo     Severity = "info"
)

// WebhookEvent names an event a webhook endpoint can receive: what SubscribeWebhook subscribes
// to, and the type of every event package webhook decodes, the stable token to switch on.
type WebhookEvent string

// The webhook events.
const (
	EventReportCompleted  WebhookEvent = "report.completed"
	EventReportFailed     WebhookEvent = "report.failed"
	EventReportOutOfQuota WebhookEvent = "report.out_of_quota"
	EventEpisodeCreated   WebhookEvent = "episode.created"
	EventSeriesFeedBroken WebhookEvent = "series.feed_broken"
)

// IsKnown reports whether e is one of the five documented events. Receivers get events this
// package does not know as they are (package webhook returns them rather than refusing them).
func (e WebhookEvent) IsKnown() bool {
	switch e {
	case EventReportCompleted, EventReportFailed, EventReportOutOfQuota, EventEpisodeCreated, EventSeriesFeedBroken:
		return true
	}
	return false
}
