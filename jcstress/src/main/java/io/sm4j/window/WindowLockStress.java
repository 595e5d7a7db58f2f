package io.sm4j.window;

import io.sm4j.collective.Op;
import io.sm4j.layout.WindowChunkDescriptor;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;
import org.openjdk.jcstress.infra.results.J_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The window's passive-target lock ({@link WindowLock}, osc/sm's reader-writer ticket lock) and its
 * accumulate over a part's memory, off-heap as in the shared file: mutual exclusion, publication of what a
 * holder wrote to the next holder, and element-wise atomic accumulates.
 */
public final class WindowLockStress
{
    private WindowLockStress()
    {
    }

    /**
     * @return a part: its header (the lock, zeroed) and 16 bytes of payload, as in a window file.
     */
    private static UnsafeBuffer part()
    {
        return new UnsafeBuffer(BufferUtil.allocateDirectAligned(WindowChunkDescriptor.PAYLOAD_OFFSET + 16, 64));
    }

    private static void lockExclusive(final UnsafeBuffer part)
    {
        final long ticket = WindowLock.takeTicket(part);
        while (!WindowLock.exclusiveGranted(part, ticket))
        {
            Thread.onSpinWait();
        }
    }

    private static void lockShared(final UnsafeBuffer part)
    {
        final long ticket = WindowLock.takeTicket(part);
        while (!WindowLock.sharedGranted(part, ticket))
        {
            Thread.onSpinWait();
        }
        WindowLock.admitNext(part, ticket);
    }

    /**
     * Two exclusive holders each read the payload's counter and write it back plus one, with plain accesses,
     * as a get and a put do: under the lock, neither increment is lost, and each holder sees the other's
     * write if it came second.
     */
    @JCStressTest
    @Outcome(id = "2", expect = ACCEPTABLE, desc = "Both increments kept: the holders took turns.")
    @Outcome(expect = FORBIDDEN, desc = "An increment lost: two holders at once, or a write not published by unlock.")
    @State
    public static class ExclusiveHoldersTakeTurns
    {
        private final UnsafeBuffer part = part();

        private void increment()
        {
            lockExclusive(part);
            final int at = WindowChunkDescriptor.PAYLOAD_OFFSET;
            part.putLong(at, part.getLong(at) + 1); // plain: the lock orders it
            WindowLock.unlockExclusive(part);
        }

        @Actor
        public void first()
        {
            increment();
        }

        @Actor
        public void second()
        {
            increment();
        }

        @Arbiter
        public void arbiter(final J_Result r)
        {
            r.r1 = part.getLong(WindowChunkDescriptor.PAYLOAD_OFFSET);
        }
    }

    /**
     * A writer stores two words under an exclusive lock (plain stores, as a put); a reader under a shared lock
     * reads both: never one without the other.
     */
    @JCStressTest
    @Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "Reader held the lock first.")
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "Reader held the lock after the writer: both words.")
    @Outcome(expect = FORBIDDEN, desc = "A torn pair: the reader ran inside the writer's hold or missed its publication.")
    @State
    public static class SharedReaderSeesWholeWrites
    {
        private final UnsafeBuffer part = part();

        @Actor
        public void writer()
        {
            lockExclusive(part);
            part.putLong(WindowChunkDescriptor.PAYLOAD_OFFSET, 1);
            part.putLong(WindowChunkDescriptor.PAYLOAD_OFFSET + 8, 1);
            WindowLock.unlockExclusive(part);
        }

        @Actor
        public void reader(final JJ_Result r)
        {
            lockShared(part);
            r.r1 = part.getLong(WindowChunkDescriptor.PAYLOAD_OFFSET);
            r.r2 = part.getLong(WindowChunkDescriptor.PAYLOAD_OFFSET + 8);
            WindowLock.unlockShared(part);
        }
    }

    /**
     * Two ranks accumulate into one element at once ({@link ElementAtomics}, as {@link Window#accumulate}):
     * SUM by fetch-and-add, MAX by a CAS loop; neither update is lost.
     */
    @JCStressTest
    @Outcome(id = "3, 7", expect = ACCEPTABLE, desc = "SUM 1 + 2 and MAX(5, 7) kept whole.")
    @Outcome(expect = FORBIDDEN, desc = "An update lost.")
    @State
    public static class AccumulatesAreElementWiseAtomic
    {
        private final UnsafeBuffer part = part();

        private void accumulate(final long add, final long max)
        {
            final int at = WindowChunkDescriptor.PAYLOAD_OFFSET;
            ElementAtomics.combine(part, at, add, Op.SUM);
            ElementAtomics.combine(part, at + 8, max, Op.MAX);
        }

        @Actor
        public void first()
        {
            accumulate(1, 5);
        }

        @Actor
        public void second()
        {
            accumulate(2, 7);
        }

        @Arbiter
        public void arbiter(final JJ_Result r)
        {
            r.r1 = part.getLong(WindowChunkDescriptor.PAYLOAD_OFFSET);
            r.r2 = part.getLong(WindowChunkDescriptor.PAYLOAD_OFFSET + 8);
        }
    }

    /**
     * The CAS-loop accumulates: a double SUM (0.5 + 0.25) and a long MIN (10, then 5 and 3) from two ranks
     * at once keep both contributions. r1 = the sum times 4, r2 = the minimum.
     */
    @JCStressTest
    @Outcome(id = "3, 3", expect = ACCEPTABLE, desc = "0.75 and MIN 3: neither update lost.")
    @Outcome(expect = FORBIDDEN, desc = "An update lost.")
    @State
    public static class DoubleSumAndMinKeepBoth
    {
        private final UnsafeBuffer part = part();

        public DoubleSumAndMinKeepBoth()
        {
            part.putLong(WindowChunkDescriptor.PAYLOAD_OFFSET + 8, 10);
        }

        @Actor
        public void first()
        {
            ElementAtomics.combine(part, WindowChunkDescriptor.PAYLOAD_OFFSET, 0.5, Op.SUM);
            ElementAtomics.combine(part, WindowChunkDescriptor.PAYLOAD_OFFSET + 8, 5L, Op.MIN);
        }

        @Actor
        public void second()
        {
            ElementAtomics.combine(part, WindowChunkDescriptor.PAYLOAD_OFFSET, 0.25, Op.SUM);
            ElementAtomics.combine(part, WindowChunkDescriptor.PAYLOAD_OFFSET + 8, 3L, Op.MIN);
        }

        @Arbiter
        public void arbiter(final JJ_Result r)
        {
            r.r1 = (long)(part.getDouble(WindowChunkDescriptor.PAYLOAD_OFFSET) * 4);
            r.r2 = part.getLong(WindowChunkDescriptor.PAYLOAD_OFFSET + 8);
        }
    }
}
