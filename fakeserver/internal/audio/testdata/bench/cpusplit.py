#!/usr/bin/env python3
"""Splits a CPU profile of internal/audio/cmd/measure into the stages PROFILE.md reports.

    go tool pprof -traces BINARY PROFILE | python3 cpusplit.py

Each sample goes to the stage of the innermost frame of its stack that names one (so the
runtime's preemption and copying count for the loop they interrupt or serve); samples without
one are "runtime, other" (GC, scheduler, channel hand-offs).
"""
import re
import sys

STAGES = [
    ("I/O", ("syscall", "internal/poll.", "os.(*File).Read", "bufio.", "countingReader", "(*source).Read")),
    ("true peak", ("tpFilter",)),
    ("K-weighting", ("audio.energy2", "(*kFilter).energy")),
    ("gating, short-term, window stats", ("blockGate", "histogram", "(*Meter).advance", "levelHistogram", "statsState")),
    ("meter input (deinterleave, sample peak, sums)", ("audio.deinterleave", "audio.moments", "audio.dot", "clipScan", "endRun")),
    ("meter, other", ("(*Meter).",)),
    ("decoder", ("mp3dec", "aacdec", "flacdec", "pion/opus", "jfreymuth", "audio.decode", "measureFLAC.func1",
                 "aacPCM", "measureOpus", "measureVorbis", "WAVReader", "audio.(*mp3", "measurePCM.func1",
                 "mewkiz/flac")),
]
ORDER = [s for s, _ in STAGES] + ["runtime, other"]


def stage(frames):
    for f in frames:
        for name, pats in STAGES:
            if any(p in f for p in pats):
                return name
    return "runtime, other"


def unit(v, u):
    return float(v) * {"s": 1, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}[u]


totals = {s: 0.0 for s in ORDER}
frames, cost = [], 0.0
for line in list(sys.stdin) + ["-----------+"]:
    if line.startswith("-----------+"):
        if frames:
            totals[stage(frames)] += cost
        frames, cost = [], 0.0
        continue
    m = re.match(r"\s+([\d.]+)(s|ms|us|µs|ns)\s+(\S.*)$", line)
    if m:
        cost = unit(m.group(1), m.group(2))
        frames.append(m.group(3))
    elif frames and line.strip():
        frames.append(line.strip())
total = sum(totals.values())
print(f"total {total:.2f} s")
for s in ORDER:
    if totals[s]:
        print(f"  {s:48s} {totals[s]:6.2f} s  {100 * totals[s] / total:5.1f}%")
