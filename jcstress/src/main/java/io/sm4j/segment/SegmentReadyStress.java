package io.sm4j.segment;

import io.sm4j.layout.LayoutParams;
import io.sm4j.layout.SegmentHeaderDescriptor;
import io.sm4j.layout.SegmentLayout;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Memory-ordering properties of the segment header's READY publication ({@link SegmentHeader}) over
 * off-heap memory. In package {@code io.sm4j.segment} (split across the library and this module, no JPMS)
 * because {@link SegmentHeader} and its methods are package-private.
 */
public final class SegmentReadyStress
{
    private SegmentReadyStress()
    {
    }

    /**
     * READY publication: a reader whose {@link SegmentHeader#state()} (acquire) returns READY sees every field
     * {@link SegmentHeader#format} wrote with plain stores before {@link SegmentHeader#publishReady()} (release):
     * the magic ({@link SegmentHeader#hasMagic}), version, parameters, total length and checksum
     * ({@link SegmentHeader#validate}, which throws on any mismatch), job id ({@link SegmentHeader#jobId()}),
     * creator ({@link SegmentHeader#creator()}) and owner ({@link SegmentHeader#owner()}). The creator formats and
     * publishes, as {@code Segment.format} does; the reader checks only once it has seen READY, as an attacher
     * does. r1 = the state read, r2 = 1 if every field is as formatted, 0 if not, -1 if not looked at.
     */
    @JCStressTest
    @Outcome(id = "0, -1", expect = ACCEPTABLE, desc = "Reader saw CREATING and trusted nothing else.")
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "Reader saw READY and every formatted field.")
    @Outcome(expect = FORBIDDEN, desc = "READY seen with a field missing or stale.")
    @State
    public static class FieldsVisibleWithReady
    {
        private static final SegmentLayout LAYOUT = SegmentLayout.compute(LayoutParams.builder(3)
            .eagerLimit(128).maxFragSize(256).queueEntries(4).cacheline(64).pageSize(64).fastBoxes(1)
            .fastBoxSize(1024).build());
        private static final long JOB_ID = 0x1234_5678_9ABC_DEF0L;
        private final SegmentHeader header =
            new SegmentHeader(new UnsafeBuffer(BufferUtil.allocateDirectAligned(SegmentHeaderDescriptor.LENGTH, 64)));

        @Actor
        public void creator()
        {
            header.format(LAYOUT, JOB_ID, SegmentHeaderDescriptor.OWNER_RANKS);
            header.publishReady();
        }

        @Actor
        public void attacher(final II_Result r)
        {
            final int state = header.state();
            r.r1 = state;
            r.r2 = state == SegmentHeaderDescriptor.STATE_READY ? (formatted() ? 1 : 0) : -1;
        }

        private boolean formatted()
        {
            try
            {
                return header.hasMagic("jcstress") &&
                    header.validate(LAYOUT.totalBytes(), "jcstress").params().equals(LAYOUT.params()) &&
                    header.jobId() == JOB_ID &&
                    header.creator().equals(ProcessIdentity.current()) &&
                    header.owner() == SegmentHeaderDescriptor.OWNER_RANKS;
            }
            catch (final Sm4jException ex)
            {
                return false;
            }
        }
    }
}
