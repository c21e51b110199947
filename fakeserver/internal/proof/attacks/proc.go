package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/PID/stat: 100 on every Linux
// architecture Go supports (the kernel exports no other value to user space).
const clockTicks = 100

// procMem is what /proc/PID/status says of a process's memory, in KiB.
type procMem struct {
	HWM int64 // VmHWM: peak resident set
	RSS int64 // VmRSS: resident set now
}

// parseStatus reads VmHWM and VmRSS out of the text of /proc/PID/status.
func parseStatus(text string) (procMem, error) {
	var m procMem
	var seen int
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		var dst *int64
		switch name {
		case "VmHWM":
			dst = &m.HWM
		case "VmRSS":
			dst = &m.RSS
		default:
			continue
		}
		fields := strings.Fields(value)
		if len(fields) != 2 || fields[1] != "kB" {
			return procMem{}, fmt.Errorf("status: %s: want \"N kB\", got %q", name, value)
		}
		n, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return procMem{}, fmt.Errorf("status: %s: %w", name, err)
		}
		*dst = n
		seen++
	}
	if seen != 2 {
		return procMem{}, errors.New("status: VmHWM or VmRSS missing")
	}
	return m, nil
}

// parseStatCPU returns utime+stime, in clock ticks, out of the text of /proc/PID/stat. The
// command name (field 2) is in parentheses and may hold spaces and parentheses itself, so the
// fields are counted from the last ')'.
func parseStatCPU(text string) (int64, error) {
	i := strings.LastIndexByte(text, ')')
	if i < 0 {
		return 0, errors.New("stat: no ')' after the command name")
	}
	// After ")": state (field 3), ppid, ..., utime is field 14 and stime field 15.
	fields := strings.Fields(text[i+1:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("stat: %d fields after the command name, want at least 13", len(fields))
	}
	utime, err := strconv.ParseInt(fields[11], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("stat: utime: %w", err)
	}
	stime, err := strconv.ParseInt(fields[12], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("stat: stime: %w", err)
	}
	return utime + stime, nil
}

// readMem reads /proc/PID/status.
func readMem(pid int) (procMem, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return procMem{}, err
	}
	return parseStatus(string(b))
}

// readCPU reads the process's CPU seconds (user+system) from /proc/PID/stat.
func readCPU(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	ticks, err := parseStatCPU(string(b))
	return float64(ticks) / clockTicks, err
}

// loadAverage is the first three fields of /proc/loadavg.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
