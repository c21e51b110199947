// Package soak holds the release soak test: many concurrent clients running a mixed workload
// against one fake, with faults injected, checked for unexpected server errors, unfinished
// reports and leaked goroutines. It has no code of its own.
package soak
