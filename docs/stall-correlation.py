#!/usr/bin/env python3
"""Reference for docs/benchmarks.md (seventeenth session): do the slow wake-ups of `sm4j bench wake` fall in
the kernel's DAMON sampling (kdamond) bursts?

Inputs: the bench's output from a build that printed, per slow round trip, `# SLOW <iteration> <wake us> at
<System.nanoTime() / 1e9 of the send>` (a temporary print, not kept: the patch is in
bench-2026-11-29-s17.txt), and `perf sched timehist -w` text of a `perf sched record -k CLOCK_MONOTONIC -a`
taken during the run (the JVM's nanoTime is CLOCK_MONOTONIC on Linux, so the two clocks agree).

    python3 docs/stall-correlation.py BENCH_OUTPUT TIMEHIST_TEXT
"""
import re
import sys

AFTER = 0.05  # a burst lasts 10-60 ms here
pattern = re.compile(r'^\s*([\d.]+)\s+\[(\d+)\]\s+(.+?)\s{2,}(.*)$')
runs = []
for line in open(sys.argv[2]):
    match = pattern.match(line)
    if match and match.group(3).startswith('kdamond') and not match.group(4).startswith('awakened'):
        end = float(match.group(1))
        runs.append((end - float(match.group(4).split()[2]) / 1e3, end))
bursts = []
for start, end in sorted(runs):
    if bursts and start - bursts[-1][1] < 0.05:
        bursts[-1][1] = max(bursts[-1][1], end)
    else:
        bursts.append([start, end])
if len(bursts) > 1:
    print('kdamond: %d bursts, one every %.0f ms, busy %.1f ms each on average' % (
        len(bursts), (bursts[-1][0] - bursts[0][0]) / (len(bursts) - 1) * 1e3,
        sum(e - s for s, e in bursts) / len(bursts) * 1e3))
lo, hi = bursts[0][0] - 0.1, bursts[-1][1] + 0.1
inside = outside = 0
for line in open(sys.argv[1]):
    if 'SLOW' in line:
        fields = line.split()
        at, micros = float(fields[-1]), int(fields[-3])
        if lo < at < hi:
            within = any(0 <= at - s <= AFTER for s, e in bursts)
            inside += within
            outside += not within
            nearest = min(bursts, key=lambda b: abs(b[0] - at))
            print('wake of %6d us sent at %.3f: %s (the nearest burst began %+.1f ms from the send)' % (
                micros, at, 'within %d ms after a burst began' % (AFTER * 1e3) if within else 'away from bursts',
                (nearest[0] - at) * 1e3))
print('slow wake-ups sent within %d ms after a kdamond burst began: %d; away from bursts: %d' % (AFTER * 1e3, inside, outside))
