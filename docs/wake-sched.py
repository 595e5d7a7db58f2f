#!/usr/bin/env python3
"""Reference for docs/benchmarks.md (seventeenth session): where a wake-up of `sm4j bench wake` waits in the
scheduler.  Input: `perf sched timehist -w` text of a `perf sched record -a` taken while the bench ran.  The
timer rank rings the sleeping receiver (the pair of JVM threads that wake each other most); for each ring:
  - from the timer being woken (its pause over) to its ring,
  - from the ring to the receiver running, and whether it ran on the ringer's core,
  - whether the receiver ran on the core it had last run on.

    python3 docs/wake-sched.py TIMEHIST_TEXT
"""
import collections
import re
import sys

pattern = re.compile(r'^\s*([\d.]+)\s+\[(\d+)\]\s+(.+?)\s{2,}(.*)$')
rows = []
for line in open(sys.argv[1]):
    match = pattern.match(line)
    if match:
        rows.append((float(match.group(1)), int(match.group(2)), match.group(3).strip(), match.group(4)))


def woken(rest):
    return rest.split('awakened:')[1].strip() if rest.startswith('awakened:') else None


pairs = collections.Counter((task, woken(rest)) for _, _, task, rest in rows
                            if task.startswith('java[') and (woken(rest) or '').startswith('java['))
(timer, receiver), _ = pairs.most_common(1)[0]
to_ring, to_run = [], []
ringer_core = other_core = last_core = moved = 0
timer_woken = ring = None
receiver_core = None
for index, (t, cpu, task, rest) in enumerate(rows):
    if woken(rest) == timer:
        timer_woken = t
    elif task == timer and woken(rest) == receiver:
        ring = (t, cpu)
        if timer_woken is not None and 0 < t - timer_woken < 0.002:
            to_ring.append((t - timer_woken) * 1e6)
        timer_woken = None
    elif task == receiver and not woken(rest):
        if ring is not None:
            start = t - float(rest.split()[2]) / 1e3
            to_run.append((start - ring[0]) * 1e6)
            ringer_core += cpu == ring[1]
            other_core += cpu != ring[1]
            if receiver_core is not None:
                last_core += cpu == receiver_core
                moved += cpu != receiver_core
            ring = None
        receiver_core = cpu


def show(name, xs):
    xs.sort()
    if xs:
        print('%-38s n %5d  p50 %6.0f us  p90 %6.0f  p99 %6.0f' % (
            name, len(xs), xs[len(xs) // 2], xs[len(xs) * 9 // 10], xs[min(len(xs) - 1, len(xs) * 99 // 100)]))


print('timer %s rings receiver %s' % (timer, receiver))
show('timer woken -> its ring', to_ring)
show('ring -> receiver running', to_run)
print('receiver ran on the ringer\'s core: %d, on another: %d' % (ringer_core, other_core))
print('receiver ran on the core it last ran on: %d, on another: %d' % (last_core, moved))
