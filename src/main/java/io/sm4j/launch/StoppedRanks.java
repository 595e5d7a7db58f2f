package io.sm4j.launch;

import io.sm4j.segment.WatchedProcess;
import org.agrona.CloseHelper;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Watches a job's rank JVMs for being stopped (SIGSTOP, Ctrl-Z, a debugger: state T or t in
 * {@code /proc/PID/stat}): a stopped rank holds up every rank that waits for it, and nothing else tells.
 * A rank stopped for {@link #NOTICE} is named in a warning (and again when it runs on); past the job's
 * stopped limit, if it has one, the launcher aborts the job. A long GC pause does not stop a process and
 * is not reported here; {@code --timeout} bounds it.
 */
final class StoppedRanks implements AutoCloseable
{
    /** How long a rank is stopped before it is named. */
    static final Duration NOTICE = Duration.ofSeconds(2);
    /** How often the ranks' states are read (one small read per rank). */
    private static final long CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    private final List<Process> ranks;
    private final WatchedProcess[] watched;
    private final Duration limit;
    /** When each rank was first seen stopped, or 0. */
    private final long[] since;
    private final boolean[] told;
    private long nextCheck;

    /**
     * @param limit how long a rank may be stopped before the job is aborted, {@link Duration#ZERO}: no limit.
     */
    StoppedRanks(final List<Process> ranks, final Duration limit)
    {
        this.ranks = ranks;
        this.limit = limit;
        this.watched = new WatchedProcess[ranks.size()];
        this.since = new long[ranks.size()];
        this.told = new boolean[ranks.size()];
    }

    /**
     * Reads the running ranks' states if it is time, warning of ranks stopped for {@link #NOTICE}.
     *
     * @param done the ranks that have exited.
     * @return why the job is to be aborted (a rank stopped past the limit), or null.
     */
    String check(final long now, final boolean[] done, final PrintWriter err)
    {
        if (now - nextCheck < 0)
        {
            return null;
        }
        nextCheck = now + CHECK_NANOS;
        for (int rank = 0; rank < watched.length; rank++)
        {
            if (done[rank])
            {
                continue;
            }
            if (watched[rank] == null)
            {
                watched[rank] = WatchedProcess.of(ranks.get(rank).toHandle()); // opened once
            }
            if (!watched[rank].isStopped())
            {
                if (told[rank])
                {
                    err.println("sm4j run: rank " + rank + " runs again after " + seconds(now - since[rank]) + " stopped");
                }
                since[rank] = 0;
                told[rank] = false;
                continue;
            }
            if (since[rank] == 0)
            {
                since[rank] = now;
            }
            final long stopped = now - since[rank];
            if (!limit.isZero() && stopped >= limit.toNanos())
            {
                return "rank " + rank + " (pid " + watched[rank].pid() + ") was stopped for " + seconds(stopped) +
                    " (--stopped-limit " + limit.toSeconds() + ")";
            }
            if (!told[rank] && stopped >= NOTICE.toNanos())
            {
                told[rank] = true;
                err.println("sm4j run: rank " + rank + " (pid " + watched[rank].pid() + ") has been stopped for " +
                    seconds(stopped) + " (SIGSTOP, Ctrl-Z or a native debugger): the ranks that wait for it wait too" +
                    (limit.isZero() ? "; --stopped-limit SECONDS aborts the job instead" : "; the job is aborted after " +
                    limit.toSeconds() + " s"));
            }
        }
        return null;
    }

    private static String seconds(final long nanos)
    {
        return String.format(java.util.Locale.ROOT, "%.1f s", nanos / 1e9);
    }

    @Override
    public void close()
    {
        CloseHelper.quietCloseAll(watched);
    }
}
