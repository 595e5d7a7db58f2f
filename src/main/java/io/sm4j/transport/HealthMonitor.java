package io.sm4j.transport;

import io.sm4j.segment.Segment;

import java.util.concurrent.TimeUnit;

/**
 * Watches the job from one rank while it waits: at most every {@link #INTERVAL_NANOS} it writes the rank's
 * heartbeat, fails if the job was aborted, and aborts the job itself if a peer's process or the launcher
 * that supervises the job has died without detaching (killed, crashed), so no rank waits forever for a
 * message that cannot come.
 */
final class HealthMonitor
{
    static final long INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private final Segment segment;
    private final int rank;
    private final long launcherPid;
    private long next;

    /**
     * @param launcherPid the supervising launcher's pid, 0 if none (then only peers are watched).
     */
    HealthMonitor(final Segment segment, final int rank, final long launcherPid)
    {
        this.segment = segment;
        this.rank = rank;
        this.launcherPid = launcherPid;
    }

    /**
     * Checks if the interval has passed. The timestamp is racy in MULTIPLE mode on purpose: a lost update
     * only means one extra check.
     *
     * @throws io.sm4j.segment.JobAbortedException if the job is (or has just been) aborted.
     */
    void check()
    {
        final long now = System.nanoTime();
        if (now - next < 0)
        {
            return;
        }
        next = now + INTERVAL_NANOS;
        segment.heartbeat(rank);
        segment.checkNotAborted();
        final int dead = segment.findDeadPeer(rank);
        if (dead >= 0)
        {
            segment.abort(rank, "rank " + dead + " (pid " + segment.pidOf(dead) + ") died");
        }
        else if (launcherPid != 0 && !ProcessHandle.of(launcherPid).map(ProcessHandle::isAlive).orElse(false))
        {
            segment.abort(rank, "the launcher (pid " + launcherPid + ") died");
        }
        segment.checkNotAborted();
    }
}
