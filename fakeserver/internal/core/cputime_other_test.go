//go:build !unix

package core

// processCPU is not measured on this system; benchmarks then report no CPU figure.
func processCPU() int64 { return 0 }
