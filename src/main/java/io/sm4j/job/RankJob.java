package io.sm4j.job;

import io.sm4j.segment.JobAbortedException;
import io.sm4j.segment.MappingGuard;
import io.sm4j.segment.RankRegistry;
import io.sm4j.segment.Segment;
import io.sm4j.segment.Sm4jException;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The job as one rank acts on it between its sends and receives: whether a peer is still attached, whether
 * the job was aborted (and why, when a peer it waits for has gone), and aborting it. Every access to the
 * segment goes through the endpoint's {@link MappingGuard}, so a close from another thread never unmaps it
 * under one of these calls.
 */
public final class RankJob
{
    /**
     * How long a rank that finds a peer it needs detached waits for the job to be aborted, in a job under a
     * launcher: a rank that fails detaches first (closing its resources) and records why just after, from its
     * exception handler, or the launcher does when it exits; that failure is the cause to report.
     */
    private static final long DETACH_ABORT_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    private final Segment segment;
    private final RankRegistry ranks;
    private final int rank;
    private final boolean supervised;
    private final MappingGuard guard;
    private final Runnable ringAll;
    /** {@link Segment#checkNotAborted}, bound once: a check allocates nothing. */
    private final Runnable checkAborted;
    /** Set once this rank has waited for an abort after a detachment: a job that is not failing waits once. */
    private volatile boolean awaitedAbort;

    /**
     * @param supervised the job runs under a launcher, which records a failed rank's cause after it detached.
     * @param ringAll    wakes every sleeping peer (after an abort, so they see it at once).
     */
    public RankJob(
        final Segment segment, final int rank, final boolean supervised, final MappingGuard guard, final Runnable ringAll)
    {
        this.segment = segment;
        this.ranks = segment.ranks();
        this.rank = rank;
        this.supervised = supervised;
        this.guard = guard;
        this.ringAll = ringAll;
        this.checkAborted = segment::checkNotAborted;
    }

    /**
     * @return true while {@code peer} is attached (registered and not yet closed); acquire: whatever it
     * published before detaching is visible to a poll that follows.
     * @throws IllegalStateException if the endpoint is closed.
     */
    public boolean isAttached(final int peer)
    {
        // guarded() spelled out: a boolean without a lambda, on a path taken per pending send
        boolean entered = false;
        try
        {
            guard.enterMapping();
            entered = true;
            return ranks.isAttached(peer);
        }
        catch (final InternalError error)
        {
            throw guard.fault(error);
        }
        finally
        {
            if (entered)
            {
                guard.exitMapping(); // a refused or faulted entry has left already
            }
        }
    }

    /**
     * A layer that finds a peer detached checks this first: ranks detach when the job is aborted, and the
     * abort (stored before their DETACHED, which an {@link #isAttached} acquired) is the cause to report.
     *
     * @throws JobAbortedException if the job was aborted.
     */
    public void checkNotAborted()
    {
        guarded(checkAborted);
    }

    /**
     * Aborts the job: records {@code reason} as its cause (the first recorded wins) and wakes every sleeping
     * rank, whose waits then end with a {@link JobAbortedException} naming it.
     */
    public void abort(final String reason)
    {
        abort(reason, 0);
    }

    /**
     * As {@link #abort(String)}, with the exit code the job's launcher exits with (0 for none).
     */
    public void abort(final String reason, final int exitCode)
    {
        guarded(() ->
        {
            segment.abort(rank, reason, exitCode);
            // NOTE: rung after the abort's store: a woken rank's next health check reads the job's state (acquire)
            ringAll.run();
        });
    }

    /**
     * For a wait that cannot complete because a peer has detached: the detachment is rarely the cause. A rank
     * that saw the job aborted detaches (the abort, stored before its DETACHED, which the caller acquired, is
     * seen here at once); a rank that failed detaches before its failure is recorded, so in a job under a
     * launcher this waits (once per rank) up to 500 ms for the abort that names it.
     *
     * @throws JobAbortedException if the job is aborted.
     */
    public void checkNotAbortedAfterDetach()
    {
        if (supervised && !awaitedAbort)
        {
            final long deadline = System.nanoTime() + DETACH_ABORT_WAIT_NANOS;
            while (System.nanoTime() - deadline < 0)
            {
                checkNotAborted();
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
            awaitedAbort = true;
        }
        checkNotAborted();
    }

    /**
     * The error of a send that found {@code dest} gone: the job's abort if it was aborted
     * ({@link #checkNotAbortedAfterDetach}), else that {@code dest} has detached.
     */
    public Sm4jException peerGone(final int dest)
    {
        checkNotAbortedAfterDetach();
        return new Sm4jException("rank " + dest + " has detached: rank " + rank + " cannot send to it");
    }

    /**
     * Runs {@code access} inside the guard, as {@link #isAttached} does.
     */
    private void guarded(final Runnable access)
    {
        boolean entered = false;
        try
        {
            guard.enterMapping();
            entered = true;
            access.run();
        }
        catch (final InternalError error)
        {
            throw guard.fault(error);
        }
        finally
        {
            if (entered)
            {
                guard.exitMapping();
            }
        }
    }
}
