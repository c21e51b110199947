package feeds

// Kind classifies why a feed could not be read.
type Kind int

const (
	// KindFetch means the feed could not be downloaded: a malformed or
	// unsupported URL, a DNS failure, a refused or broken connection, a
	// timeout, a cancelled request, or an HTTP error status.
	KindFetch Kind = iota + 1
	// KindParse means the feed was downloaded but its content is not a
	// readable RSS or Atom feed (including a body over [MaxFeedBytes]).
	KindParse
)

// String returns "fetch", "parse" or, for any other value, "unknown".
func (k Kind) String() string {
	switch k {
	case KindFetch:
		return "fetch"
	case KindParse:
		return "parse"
	}
	return "unknown"
}

// Error is the error returned by [Parse] and [Fetch].
type Error struct {
	// Kind says whether fetching or parsing the feed failed.
	Kind Kind
	// Message explains the failure in words fit for an API error message,
	// for example "the feed URL answered HTTP 500". It never holds the
	// feed URL itself.
	Message string
	// StatusCode is the HTTP status the feed URL answered with when that
	// status caused the failure, else 0.
	StatusCode int
	// Err is the underlying error, if any, for logs; it may be nil.
	Err error
}

// Error returns e.Message.
func (e *Error) Error() string { return e.Message }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

func fetchError(msg string, err error) *Error {
	return &Error{Kind: KindFetch, Message: msg, Err: err}
}

func parseError(msg string, err error) *Error {
	return &Error{Kind: KindParse, Message: msg, Err: err}
}
