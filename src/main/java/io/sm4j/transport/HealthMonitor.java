package io.sm4j.transport;

import io.sm4j.segment.Segment;

import java.util.concurrent.TimeUnit;

/**
 * Watches the job from one rank while it waits: at most every {@link #INTERVAL_NANOS} it writes the rank's
 * heartbeat, fails if the job was aborted, and aborts the job itself if a peer's process or the launcher
 * that created the segment has died without detaching (killed, crashed), so no rank waits forever for a
 * message that cannot come.
 */
final class HealthMonitor
{
    static final long INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private final Segment segment;
    private final int rank;
    private long next;

    HealthMonitor(final Segment segment, final int rank)
    {
        this.segment = segment;
        this.rank = rank;
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
        else if (!segment.isCreatorAlive())
        {
            segment.abort(rank, "the launcher (pid " + segment.creatorPid() + ") that created the segment died");
        }
        segment.checkNotAborted();
    }
}
