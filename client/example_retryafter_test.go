package client_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/podqa/podqa-go/client"
)

// Wait out a rate limit: RetryAfter finds the service's Retry-After in an error, however
// wrapped, and says whether the error is worth waiting for at all.
func ExampleRetryAfter() {
	errs := []error{
		fmt.Errorf("fetching the report: %w", &client.APIError{StatusCode: 429, Code: "rate_limited", RetryAfter: 30 * time.Second}),
		&client.APIError{StatusCode: 503, RetryAfter: 2 * time.Second},
		&client.APIError{StatusCode: 404, Code: "not_found"},
		errors.New("connection reset"),
	}
	for _, err := range errs {
		if wait, ok := client.RetryAfter(err); ok {
			fmt.Println("retry in", wait)
		} else {
			fmt.Println("do not retry on your own")
		}
	}
	// Output:
	// retry in 30s
	// retry in 2s
	// do not retry on your own
	// do not retry on your own
}
