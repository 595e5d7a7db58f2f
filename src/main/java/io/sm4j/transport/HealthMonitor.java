package io.sm4j.transport;

import io.sm4j.segment.RankRegistry;
import io.sm4j.segment.Segment;

import java.util.concurrent.TimeUnit;

/**
 * Watches the job from one rank's progress loop: at most every {@link #INTERVAL_NANOS} it writes the rank's
 * heartbeat, fails if the job was aborted, and aborts the job itself if a peer's process or the launcher
 * that supervises the job has died without detaching (killed, crashed), so no rank waits forever for a
 * message that cannot come. It is the progress loop's one clock: it reads System.nanoTime() once per
 * {@link #CALLS_PER_CLOCK_READ} calls, and layers above run their own periodic work (timeouts, orphaned
 * requests) on its reading and its ticks instead of reading the clock again.
 */
final class HealthMonitor
{
    static final long INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final int CALLS_PER_CLOCK_READ = 64;
    private final Segment segment;
    private final int rank;
    private final long launcherPid;
    /** Looked up once: a check allocates nothing; null if the launcher was already gone. */
    private final ProcessHandle launcher;
    private int calls;
    private long next;
    private long now = System.nanoTime();
    private long ticks;

    /**
     * @param launcherPid the supervising launcher's pid, 0 if none (then only peers are watched).
     */
    HealthMonitor(final Segment segment, final int rank, final long launcherPid)
    {
        this.segment = segment;
        this.rank = rank;
        this.launcherPid = launcherPid;
        this.launcher = launcherPid == 0 ? null : ProcessHandle.of(launcherPid).orElse(null);
    }

    /**
     * Checks the job if the interval has passed. The counters and timestamps are racy in MULTIPLE mode on
     * purpose: a lost update only means one check more or less.
     *
     * @throws io.sm4j.segment.JobAbortedException if the job is (or has just been) aborted.
     */
    void check()
    {
        // the clock is read every CALLS_PER_CLOCK_READ calls only: check() runs on every poll and idle
        if ((++calls & (CALLS_PER_CLOCK_READ - 1)) != 0)
        {
            return;
        }
        now = System.nanoTime();
        if (now - next < 0)
        {
            return;
        }
        next = now + INTERVAL_NANOS;
        ticks++;
        final RankRegistry ranks = segment.ranks();
        ranks.heartbeat(rank);
        segment.checkNotAborted();
        final int dead = ranks.findDeadPeer(rank);
        if (dead >= 0)
        {
            segment.abort(rank, "rank " + dead + " (pid " + ranks.pidOf(dead) + ") died");
        }
        else if (launcherPid != 0 && (launcher == null || !launcher.isAlive()))
        {
            segment.abort(rank, "the launcher (pid " + launcherPid + ") died");
        }
        segment.checkNotAborted();
    }

    /**
     * @return System.nanoTime() as last read, at most {@link #CALLS_PER_CLOCK_READ} calls ago.
     */
    long now()
    {
        return now;
    }

    /**
     * @return how many checks have run: it moves at most every {@link #INTERVAL_NANOS}.
     */
    long ticks()
    {
        return ticks;
    }
}
