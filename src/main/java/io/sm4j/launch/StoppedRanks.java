package io.sm4j.launch;

import io.sm4j.layout.CountersDescriptor;
import io.sm4j.segment.Segment;
import io.sm4j.segment.Sm4jException;
import io.sm4j.segment.WatchedProcess;
import org.agrona.CloseHelper;
import org.agrona.concurrent.AtomicBuffer;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Watches a job's rank JVMs for being held up: stopped (SIGSTOP, Ctrl-Z, a native debugger: state T or t in
 * {@code /proc/PID/stat}), or frozen inside an sm4j wait (a Java debugger that suspended its threads, a long
 * GC pause, a machine too busy to run it: the process runs, but the rank, marked waiting, has not written
 * its heartbeat for {@link #FROZEN_AFTER}, where a waiting rank writes it about every 100 ms). Such a
 * rank holds up every rank that waits for it, and nothing else tells. A rank held up for {@link #NOTICE}
 * is named in a warning (and again when it runs on); past the job's stopped limit, if it has one, the
 * launcher aborts the job. A rank that computes outside sm4j is not marked waiting and never named.
 */
final class StoppedRanks implements AutoCloseable
{
    /** How long a rank is stopped before it is named. */
    static final Duration NOTICE = Duration.ofSeconds(2);
    /** A rank marked waiting whose heartbeat is this old is frozen (ten missed health checks). */
    static final Duration FROZEN_AFTER = Duration.ofSeconds(1);
    /** How often the ranks' states are read (one small read per rank). */
    private static final long CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    private final List<Process> ranks;
    private final Segment segment;
    /** Each rank's counters, for its waiting mark. */
    private final AtomicBuffer[] counters;
    private final WatchedProcess[] watched;
    private final Duration limit;
    /** When each rank was first seen stopped, or last beat before it froze; 0 while it runs. */
    private final long[] since;
    /** Each held-up rank's state: frozen (else stopped). */
    private final boolean[] frozen;
    /** Per rank, the heartbeat last read while it was marked waiting (0: not marked), and when it was first read. */
    private final long[] beat;
    private final long[] beatSeen;
    private final boolean[] told;
    /** System.nanoTime() of the next check (a check's time plus {@link #CHECK_NANOS}), 0 before the first. */
    private long nextCheck;

    /**
     * @param limit how long a rank may be stopped before the job is aborted, {@link Duration#ZERO}: no limit.
     */
    StoppedRanks(final List<Process> ranks, final Segment segment, final Duration limit)
    {
        this.ranks = ranks;
        this.segment = segment;
        this.counters = new AtomicBuffer[ranks.size()];
        for (int rank = 0; rank < counters.length; rank++)
        {
            counters[rank] = segment.views().counters(rank); // a view: nothing is read until a check
        }
        this.limit = limit;
        this.watched = new WatchedProcess[ranks.size()];
        this.since = new long[ranks.size()];
        this.frozen = new boolean[ranks.size()];
        this.beat = new long[ranks.size()];
        this.beatSeen = new long[ranks.size()];
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
        // more than two intervals since the last check (which set nextCheck one interval on)
        final boolean away = nextCheck != 0 && now - nextCheck > CHECK_NANOS;
        nextCheck = now + CHECK_NANOS;
        if (away)
        {
            // this launcher did not run meanwhile (Ctrl-Z stops the whole process group, ranks and launcher alike, or
            // the machine was suspended): a heartbeat it last read before that is no evidence of a frozen rank, whose
            // next beat may not have come yet; the frozen clocks start again from now, and this pass judges nothing (a
            // rank held frozen before would read as running again)
            java.util.Arrays.fill(beatSeen, now);
            return null;
        }
        final boolean intact = intact();
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
            final boolean stopped = watched[rank].isStopped();
            final long frozenSince = stopped || !intact ? 0 : frozenSince(rank, now);
            final boolean frozenNow = frozenSince != 0;
            if (!stopped && !frozenNow)
            {
                if (told[rank])
                {
                    err.println("sm4j run: rank " + rank + " runs again after " + seconds(now - since[rank]) +
                        (frozen[rank] ? " frozen" : " stopped"));
                }
                since[rank] = 0;
                told[rank] = false;
                continue;
            }
            if (since[rank] == 0)
            {
                since[rank] = stopped ? now : frozenSince;
                frozen[rank] = frozenNow;
            }
            final long held = now - since[rank];
            final String what = frozen[rank] ? "frozen" : "stopped";
            if (!limit.isZero() && held >= limit.toNanos())
            {
                return "rank " + rank + " (pid " + watched[rank].pid() + ") was " + what + " for " + seconds(held) +
                    " (--stopped-limit " + limit.toSeconds() + ")";
            }
            if (!told[rank] && held >= NOTICE.toNanos())
            {
                told[rank] = true;
                err.println("sm4j run: rank " + rank + " (pid " + watched[rank].pid() + ") has been " + what + " for " +
                    seconds(held) + (frozen[rank] ? " inside an sm4j wait: its heartbeat stopped while its process runs " +
                    "(a Java debugger that suspended it, a long GC pause, or a machine too busy to run it)" :
                    " (SIGSTOP, Ctrl-Z or a native debugger)") + ": the ranks that wait for it wait too" +
                    (limit.isZero() ? "; --stopped-limit SECONDS aborts the job instead" : "; the job is aborted after " +
                    limit.toSeconds() + " s"));
            }
        }
        return null;
    }

    /**
     * @return true if the file still has its layout's length, so that its mapping can be read: a cut file's
     *         mapping faults, and in compiled code the fault surfaces on a later return, beyond the catch in
     *         {@link #frozenSince} (the launcher died with an InternalError in 1 of 4 runs of
     *         {@code PeerFailureTest.aSegmentTruncatedUnderARunningJob…}).
     */
    private boolean intact()
    {
        try
        {
            segment.checkIntact();
            return true;
        }
        catch (final Sm4jException truncated)
        {
            return false; // its ranks report it
        }
    }

    /**
     * A rank is frozen when it stays marked waiting and attached while its heartbeat does not move for
     * {@link #FROZEN_AFTER}, timed by this launcher from the first check that read that heartbeat (a rank
     * that enters a wait after a long computation is marked before its first new beat: its old beat is not
     * counted against it).
     *
     * @return when the launcher first read the heartbeat that has not moved since, if the rank is frozen,
     *         else 0; 0 too if the segment file was truncated under the job (its ranks report that).
     */
    private long frozenSince(final int rank, final long now)
    {
        try
        {
            // the mark first: a rank that marks itself, then beats, is never judged by a beat older than its mark
            final boolean waiting = counters[rank].getLongVolatile(CountersDescriptor.offset(CountersDescriptor.WAITING)) != 0 &&
                segment.ranks().isAttached(rank);
            final long last = waiting ? segment.ranks().lastHeartbeat(rank) : 0;
            if (last != beat[rank])
            {
                beat[rank] = last;
                beatSeen[rank] = now;
                return 0;
            }
            return last != 0 && now - beatSeen[rank] >= FROZEN_AFTER.toNanos() ? beatSeen[rank] : 0;
        }
        catch (final InternalError truncated)
        {
            return 0; // HotSpot's SIGBUS on a mapping whose file was cut: not a frozen rank
        }
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
