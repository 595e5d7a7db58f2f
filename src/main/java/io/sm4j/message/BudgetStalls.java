package io.sm4j.message;

import io.sm4j.segment.Sm4jException;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Tells, once, that a rank's unexpected-message budget has held messages back for a while: they wait in
 * shared memory with their senders, and a receive for anything a sender sent after them waits too, for as
 * long as nothing takes them. Not an error (the application may be about to receive them), but never a
 * silent hang: the line names the limit, the ranks held back, and how to raise it.
 * <p>
 * {@link Matcher#accepts} notes each decline; the progress engine calls {@link #check} on its health tick
 * (about every 100 ms of polling): declines in every tick for {@link #NOTICE_NANOS} make the line.
 * <p>
 * It is an error when a wait without a deadline needs a message from a rank held back that long
 * ({@link #starved}): the messages ahead of it can only be taken by receives this thread would post after
 * the wait, and the budget frees nothing before, so the wait could never end (issue 21, item 4).
 */
final class BudgetStalls
{
    /** How long messages are held back before the line is printed. */
    static final long NOTICE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final int rank;
    private final long limit;
    private final PrintStream err;
    private final boolean[] heldBack;
    /** Per source: when its declines began without a tick free of them, or -1. */
    private final long[] heldSince;
    private int heldCount;
    /** When declines began without a tick free of them, or -1. */
    private long since = -1;
    private boolean told;

    BudgetStalls(final int rank, final int size, final long limit, final PrintStream err)
    {
        this.rank = rank;
        this.limit = limit;
        this.err = err;
        this.heldBack = new boolean[size];
        this.heldSince = new long[size];
        java.util.Arrays.fill(heldSince, -1);
    }

    boolean heldBack(final int source)
    {
        return heldBack[source];
    }

    /**
     * @return true if the budget has held {@code source}'s messages back for {@link #NOTICE_NANOS}.
     */
    boolean heldTooLong(final int source, final long now)
    {
        final long since = heldSince[source];
        return heldBack[source] && since >= 0 && now - since >= NOTICE_NANOS;
    }

    void declined(final int source)
    {
        if (!heldBack[source])
        {
            heldBack[source] = true;
            heldCount++;
        }
    }

    /**
     * The message from {@code source} that the budget declined last was taken after all (it stood ahead of one
     * that must not wait): this tick does not count it; the poll's next decline marks the source again.
     */
    void taken(final int source)
    {
        if (heldBack[source])
        {
            heldBack[source] = false;
            heldCount--;
        }
    }

    /**
     * @param now  the progress loop's clock.
     * @param kept bytes the unexpected messages keep now.
     */
    void check(final long now, final long kept)
    {
        for (int source = 0; source < heldSince.length; source++)
        {
            heldSince[source] = !heldBack[source] ? -1 : heldSince[source] < 0 ? now : heldSince[source];
        }
        if (heldCount == 0)
        {
            since = -1; // a tick without a decline: the budget let everything in
            told = false;
            return;
        }
        if (since < 0)
        {
            since = now;
        }
        else if (!told && now - since >= NOTICE_NANOS)
        {
            told = true;
            err.println(String.format(Locale.ROOT, "sm4j: rank %d has held back messages from rank(s) %s for %d ms: " +
                "its unexpected-message budget is full (%,d bytes kept, limit %,d: SM4J_UNEXPECTED_BYTES, by default a " +
                "quarter of the heap); a receive of anything they sent after them waits until they are received. " +
                "Receive them, or raise SM4J_UNEXPECTED_BYTES (and -Xmx)", rank, sources(),
                TimeUnit.NANOSECONDS.toMillis(now - since), kept, limit));
        }
        java.util.Arrays.fill(heldBack, false);
        heldCount = 0;
    }

    /**
     * @param source the rank whose message a wait without a deadline needs; before this tick's {@link #check}
     *               (which clears the declines it reads), and only for a wait that has spanned a whole tick (a
     *               hold that ended just before it began is cleared by the tick after; during the wait no
     *               receive can end one).
     * @param now    the progress loop's clock.
     * @param kept   bytes the unexpected messages keep now.
     * @return the one-line error if the budget has held {@code source}'s messages back for
     *         {@link #NOTICE_NANOS} (the wait can never end), else null.
     */
    Sm4jException starved(final int source, final long now, final long kept)
    {
        if (!heldTooLong(source, now))
        {
            return null;
        }
        return new Sm4jException(String.format(Locale.ROOT, "rank %d waits for a message from rank %d that cannot " +
            "arrive: it is behind messages from rank %d that no receive has taken, and the unexpected-message " +
            "budget is full (%,d bytes kept, limit %,d: SM4J_UNEXPECTED_BYTES, by default a quarter of the heap). " +
            "Post receives for them before such a wait, or raise SM4J_UNEXPECTED_BYTES (and -Xmx)",
            rank, source, source, kept, limit));
    }

    private List<Integer> sources()
    {
        final List<Integer> sources = new ArrayList<>();
        for (int source = 0; source < heldBack.length; source++)
        {
            if (heldBack[source])
            {
                sources.add(source);
            }
        }
        return sources;
    }
}
