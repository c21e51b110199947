//go:build unix

package core

import "syscall"

// processCPU is the process's user and system CPU time so far, in nanoseconds, so that a
// benchmark can report CPU per op beside wall time on a machine shared with other work.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
