package dashboard

import "sync"

// shared holds the pages New parses, parsed on first use.
var shared = sync.OnceValues(New)

// Shared is the pages New parses, parsed once per process: a parsed template is immutable and
// safe to render from many goroutines, so every fake in the process renders the same Pages.
func Shared() (*Pages, error) { return shared() }
