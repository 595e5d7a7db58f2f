package io.sm4j.job;

import io.sm4j.segment.JobAbortedException;
import io.sm4j.segment.RankRegistry;
import io.sm4j.segment.Segment;
import io.sm4j.segment.WatchedProcess;

import java.util.concurrent.TimeUnit;

/**
 * Watches the job from one rank's progress loop: at most every {@link #INTERVAL_NANOS} it writes the rank's
 * heartbeat, fails if the job was aborted, and aborts the job itself if a peer's process or the launcher
 * that supervises the job has died without detaching (killed, crashed), so no rank waits forever for a
 * message that cannot come. It is the progress loop's one clock: it reads System.nanoTime() once per
 * {@link #CALLS_PER_CLOCK_READ} calls, and layers above run their own periodic work (timeouts, orphaned
 * requests) on its reading and its ticks instead of reading the clock again.
 */
public final class HealthMonitor
{
    public static final long INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final int CALLS_PER_CLOCK_READ = 64;
    private final Segment segment;
    private final int rank;
    private final long launcherPid;
    private final Runnable onAbort;
    private final RankCounters counters;
    /** Looked up once: a check allocates nothing; null if the launcher was already gone. */
    private final WatchedProcess launcher;
    /** Where this rank says why it stops once the launcher is gone; null without a launcher. */
    private final LauncherConsole console;
    private int calls;
    /** A sleep ended since the last check: the next {@link #check} runs at once. */
    private boolean dueAfterSleep;
    private long next;
    private long now = System.nanoTime();
    private long ticks;

    /**
     * @param launcherPid the supervising launcher's pid, 0 if none (then only peers are watched).
     * @param onAbort     run when this rank aborts the job: the transport rings its sleeping peers, so they
     *                    see the abort at once.
     * @param counters    published on every check.
     */
    public HealthMonitor(
        final Segment segment, final int rank, final long launcherPid, final Runnable onAbort, final RankCounters counters)
    {
        this.counters = counters;
        this.segment = segment;
        this.onAbort = onAbort;
        this.rank = rank;
        this.launcherPid = launcherPid;
        this.launcher = launcherPid == 0 ? null : ProcessHandle.of(launcherPid).map(WatchedProcess::of).orElse(null);
        this.console = launcherPid == 0 ? null : LauncherConsole.of(launcherPid);
    }

    /**
     * Checks the job if the interval has passed, or at once after a sleep ({@link #afterSleep}): from a quiet
     * moment, an idle or a pass that delivered nothing. The counters and timestamps are racy in MULTIPLE mode
     * on purpose: a lost update only means one check more or less.
     *
     * @throws io.sm4j.segment.JobAbortedException if the job is (or has just been) aborted.
     */
    public void check()
    {
        if (dueAfterSleep)
        {
            dueAfterSleep = false;
            try
            {
                segment.checkNotAborted(); // the ring that woke the rank may be an abort's: seen now, not at the interval
            }
            catch (final JobAbortedException aborted)
            {
                throw told(aborted);
            }
        }
        else if ((++calls & (CALLS_PER_CLOCK_READ - 1)) != 0)
        {
            return; // the clock is read every CALLS_PER_CLOCK_READ calls only: check() runs on most quiet passes
        }
        checkNow();
    }

    /**
     * From a pass that delivered: checks the job only if the check is a whole interval late (a rank that is
     * never quiet still checks, every two intervals). The check reads each peer's /proc file and the
     * launcher's, tens of microseconds that a message just delivered would otherwise wait for: a sleeping
     * rank woken by a message paid them once every interval, on 1 in 20 wake-ups 5 ms apart, which made the
     * wake-up's p99 (docs/benchmarks.md, "Nineteenth session").
     */
    public void checkBusy()
    {
        if ((++calls & (CALLS_PER_CLOCK_READ - 1)) != 0)
        {
            return;
        }
        now = System.nanoTime();
        if (now - next >= INTERVAL_NANOS)
        {
            checkIfDue();
        }
    }

    /**
     * After a sleep, which may have lasted a whole interval: reads the clock now (the callers' deadlines see the
     * time slept), and leaves the check to the next {@link #check}, which runs it at once: the pass that follows
     * first takes whatever woke the rank.
     */
    public void afterSleep()
    {
        now = System.nanoTime();
        dueAfterSleep = true;
    }

    private void checkNow()
    {
        now = System.nanoTime();
        checkIfDue();
    }

    /**
     * Runs the check if the interval has passed at {@link #now}.
     */
    private void checkIfDue()
    {
        if (now - next < 0)
        {
            return;
        }
        next = now + INTERVAL_NANOS;
        ticks++;
        counters.publish();
        final RankRegistry ranks = segment.ranks();
        ranks.heartbeat(rank);
        try
        {
            segment.checkNotAborted();
            final int dead = ranks.findDeadPeer(rank);
            if (dead >= 0)
            {
                abort("rank " + dead + " (pid " + ranks.pidOf(dead) + ") died");
            }
            else if (launcherGone())
            {
                abort("the launcher (pid " + launcherPid + ") died");
            }
        }
        catch (final JobAbortedException aborted)
        {
            throw told(aborted);
        }
    }

    /**
     * Once the launcher is gone, says why this rank stops on the launcher's stderr: whatever it prints next goes
     * to the launcher's pipes, which nobody reads.
     *
     * @return {@code aborted}, to throw.
     */
    private JobAbortedException told(final JobAbortedException aborted)
    {
        if (console != null && launcherGone())
        {
            console.sayOnce(rank, aborted.getMessage());
        }
        return aborted;
    }

    private boolean launcherGone()
    {
        return launcherPid != 0 && (launcher == null || !launcher.isRunning());
    }

    private void abort(final String reason)
    {
        segment.abort(rank, reason);
        onAbort.run();
        segment.checkNotAborted();
    }

    /**
     * @return System.nanoTime() as last read, at most {@link #CALLS_PER_CLOCK_READ} calls ago.
     */
    public long now()
    {
        return now;
    }

    /**
     * Stops watching the launcher (closes its /proc file).
     */
    public void close()
    {
        if (launcher != null)
        {
            launcher.close();
        }
    }

    /**
     * @return how many checks have run: it moves at most every {@link #INTERVAL_NANOS}.
     */
    public long ticks()
    {
        return ticks;
    }
}
