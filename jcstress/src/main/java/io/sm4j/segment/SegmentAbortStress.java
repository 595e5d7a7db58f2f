package io.sm4j.segment;

import io.sm4j.layout.LayoutParams;
import io.sm4j.layout.SegmentHeaderDescriptor;
import io.sm4j.layout.SegmentLayout;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import org.openjdk.jcstress.infra.results.I_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Memory-ordering and atomicity properties of the job abort in the segment header ({@link SegmentHeader#abort},
 * {@link SegmentHeader#abortCause()}): a CAS from READY to the transient ABORTING state elects one aborter,
 * which writes reason and rank with plain stores and release-stores ABORTED. In package {@code io.sm4j.segment}
 * because {@link SegmentHeader} is package-private.
 */
public final class SegmentAbortStress
{
    /** Fills the header's whole reason field ({@link SegmentHeaderDescriptor#ABORT_REASON_MAX_LENGTH} bytes). */
    private static final String LONG_REASON = "A".repeat(SegmentHeaderDescriptor.ABORT_REASON_MAX_LENGTH);
    private static final String SHORT_REASON = "rank 2 (pid 42) died";
    private static final String DIED_WHILE_WRITING = "(the aborting process died while writing its reason)";
    private static final SegmentLayout LAYOUT = SegmentLayout.compute(LayoutParams.defaults(4));

    private SegmentAbortStress()
    {
    }

    /**
     * @return a READY header, published before the actors run.
     */
    private static SegmentHeader readyHeader()
    {
        final SegmentHeader header =
            new SegmentHeader(new UnsafeBuffer(BufferUtil.allocateDirectAligned(SegmentHeaderDescriptor.LENGTH, 64)));
        header.format(LAYOUT, 1, SegmentHeaderDescriptor.OWNER_CREATOR);
        header.publishReady();
        return header;
    }

    /**
     * ABORTED publication: a reader whose {@link SegmentHeader#abortCause()} acquires ABORTED gets the complete
     * reason (136 bytes, the whole field) and the rank, written with plain stores before the release of ABORTED.
     * r1 = 0 while not aborted (null), 1 for the whole reason and rank, 2 if the reader gave up waiting out
     * ABORTING (its 1 s limit, for an aborter that died mid-write: here only if the aborter's thread was
     * descheduled that long), -1 for anything else.
     */
    @JCStressTest
    @Outcome(id = "0", expect = ACCEPTABLE, desc = "Reader looked before the abort: not aborted.")
    @Outcome(id = "1", expect = ACCEPTABLE, desc = "Reader saw ABORTED with the whole reason and the rank.")
    @Outcome(id = "2", expect = ACCEPTABLE_INTERESTING,
        desc = "Reader waited out ABORTING for its 1 s limit (the aborter's thread was descheduled that long).")
    @Outcome(expect = FORBIDDEN, desc = "ABORTED seen with a partial, empty or stale reason or rank.")
    @State
    public static class ReasonVisibleWithAborted
    {
        private final SegmentHeader header = readyHeader();

        @Actor
        public void aborter()
        {
            header.abort(3, LONG_REASON);
        }

        @Actor
        public void reader(final I_Result r)
        {
            final JobAbortedException cause = header.abortCause();
            if (cause == null)
            {
                r.r1 = 0;
            }
            else if (cause.abortingRank() == 3 && cause.reason().equals(LONG_REASON))
            {
                r.r1 = 1;
            }
            else
            {
                r.r1 = cause.abortingRank() == -1 && cause.reason().equals(DIED_WHILE_WRITING) ? 2 : -1;
            }
        }
    }

    /**
     * Two aborters: exactly one reason wins, whole, with its own rank, never a mix of the two (the reasons differ
     * in length, so the winner's length with the loser's bytes, or the reverse, also shows). The arbiter reads the
     * cause after both. r1 = the rank recorded, r2 = 1 if the reason is that rank's, 0 if not.
     */
    @JCStressTest
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "Rank 1 won: its reason, whole.")
    @Outcome(id = "2, 1", expect = ACCEPTABLE, desc = "Rank 2 won: its reason, whole.")
    @Outcome(expect = FORBIDDEN, desc = "No winner, a mixed reason, or a reason with the other rank.")
    @State
    public static class OneReasonWins
    {
        private final SegmentHeader header = readyHeader();

        @Actor
        public void first()
        {
            header.abort(1, LONG_REASON);
        }

        @Actor
        public void second()
        {
            header.abort(2, SHORT_REASON);
        }

        @Arbiter
        public void arbiter(final II_Result r)
        {
            final JobAbortedException cause = header.abortCause();
            r.r1 = cause == null ? 0 : cause.abortingRank();
            r.r2 = cause != null && cause.reason().equals(cause.abortingRank() == 1 ? LONG_REASON : SHORT_REASON) ? 1 : 0;
        }
    }
}
