package io.sm4j.collective;

import io.sm4j.layout.CollectiveSlotDescriptor;
import io.sm4j.segment.Sm4jException;
import org.agrona.BufferUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.JJ_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The collective region's step protocol ({@link SharedCollectives}), with the real class over off-heap slots:
 * a writer's half and call record are visible once its step is (release / acquire), and a half is not
 * rewritten two steps later until every reader has posted the step between (so a reader never reads the
 * later data in place of the earlier). In package {@code io.sm4j.collective} because
 * {@link SharedCollectives} is package-private.
 */
public final class CollectiveSlotStress
{
    private static final int CACHELINE = 64;
    private static final int BUFFER = 1024;

    private CollectiveSlotStress()
    {
    }

    /** Two ranks' slots, each waiting by spinning on the other's step word. */
    abstract static class TwoRanks implements SharedRegion
    {
        final AtomicBuffer[] slots = new AtomicBuffer[2];
        final SharedCollectives rank0;
        final SharedCollectives rank1;

        TwoRanks()
        {
            final int stride = (int)CollectiveSlotDescriptor.stride(CACHELINE, BUFFER);
            final UnsafeBuffer memory = new UnsafeBuffer(BufferUtil.allocateDirectAligned(2 * stride, CACHELINE));
            slots[0] = new UnsafeBuffer(memory, 0, stride);
            slots[1] = new UnsafeBuffer(memory, stride, stride);
            rank0 = new SharedCollectives(this, 0, 2);
            rank1 = new SharedCollectives(this, 1, 2);
        }

        @Override
        public AtomicBuffer slot(final int rank)
        {
            return slots[rank];
        }

        @Override
        public int cacheline()
        {
            return CACHELINE;
        }

        @Override
        public int bufferSize()
        {
            return BUFFER;
        }

        @Override
        public void awaitStep(final int rank, final long step, final String collective)
        {
            while (slots[rank].getLongAcquire(CollectiveSlotDescriptor.STEP_OFFSET) < step)
            {
                Thread.onSpinWait();
            }
        }

        @Override
        public void wake(final int rank)
        {
        }

        @Override
        public void enter()
        {
        }

        @Override
        public void exit()
        {
        }

        @Override
        public Sm4jException fault(final InternalError error)
        {
            return new Sm4jException(error.getMessage());
        }
    }

    /**
     * Rank 0 broadcasts 1, 2 and 3 (steps 1 to 3: step 3 reuses step 1's half); rank 1 must receive them
     * in order, each whole.
     */
    @JCStressTest
    @Outcome(id = "1, 2, 3", expect = ACCEPTABLE, desc = "Every bcast delivered its own value.")
    @Outcome(expect = FORBIDDEN, desc = "A reader saw a half before it was written, or after it was rewritten.")
    @State
    public static class BcastsReuseHalvesSafely extends TwoRanks
    {
        private final UnsafeBuffer out = new UnsafeBuffer(new byte[8]);
        private final UnsafeBuffer in = new UnsafeBuffer(new byte[8]);

        @Actor
        public void root()
        {
            for (long value = 1; value <= 3; value++)
            {
                out.putLong(0, value);
                rank0.bcast(out, 0, 8, 0, Collectives.BCAST_TAG);
            }
        }

        @Actor
        public void reader(final III_Result r)
        {
            rank1.bcast(in, 0, 8, 0, Collectives.BCAST_TAG);
            r.r1 = (int)in.getLong(0);
            rank1.bcast(in, 0, 8, 0, Collectives.BCAST_TAG);
            r.r2 = (int)in.getLong(0);
            rank1.bcast(in, 0, 8, 0, Collectives.BCAST_TAG);
            r.r3 = (int)in.getLong(0);
        }
    }

    /**
     * Both ranks allReduce (SUM of longs) twice: each must get the same sums, from both ranks' vectors of
     * that call (the arbiter marks rank 0's sums that differ from rank 1's with -1).
     */
    @JCStressTest
    @Outcome(id = "3, 30", expect = ACCEPTABLE, desc = "Both calls combined both ranks' vectors of that call.")
    @Outcome(expect = FORBIDDEN, desc = "A combine read a vector of another call, or one not yet written.")
    @State
    public static class AllReducesCombineTheirOwnCallsVectors extends TwoRanks
    {
        private final ByteOperator sum = Op.SUM.over(ElementType.LONG);
        private final UnsafeBuffer out0 = new UnsafeBuffer(new byte[8]);
        private final UnsafeBuffer in0 = new UnsafeBuffer(new byte[8]);
        private final UnsafeBuffer out1 = new UnsafeBuffer(new byte[8]);
        private final UnsafeBuffer in1 = new UnsafeBuffer(new byte[8]);
        private long first0;
        private long second0;

        @Actor
        public void rank0()
        {
            out0.putLong(0, 1);
            rank0.reduce(out0, 0, in0, 0, 8, sum, Long.BYTES, 0, true, Collectives.ALL_REDUCE_TAG);
            first0 = in0.getLong(0);
            out0.putLong(0, 10);
            rank0.reduce(out0, 0, in0, 0, 8, sum, Long.BYTES, 0, true, Collectives.ALL_REDUCE_TAG);
            second0 = in0.getLong(0);
        }

        @Actor
        public void rank1(final JJ_Result r)
        {
            out1.putLong(0, 2);
            rank1.reduce(out1, 0, in1, 0, 8, sum, Long.BYTES, 0, true, Collectives.ALL_REDUCE_TAG);
            r.r1 = in1.getLong(0);
            out1.putLong(0, 20);
            rank1.reduce(out1, 0, in1, 0, 8, sum, Long.BYTES, 0, true, Collectives.ALL_REDUCE_TAG);
            r.r2 = in1.getLong(0);
        }

        @Arbiter
        public void compare(final JJ_Result r)
        {
            if (first0 != r.r1 || second0 != r.r2)
            {
                r.r1 = -1;
            }
        }
    }

    /**
     * Two allReduces of 96 longs (768 bytes, longer than a step at halves of 512 bytes): sliced, each in 4
     * steps (parts of 336 bytes: two slices of 168; the last step carries only the combined slices), so every
     * half is reused within a call and across the two. The arbiter counts the elements of both ranks'
     * results that differ from the sums.
     */
    @JCStressTest
    @Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "Every element of both calls is the sum of that call's vectors.")
    @Outcome(expect = FORBIDDEN, desc = "A slice was read before it was written, or after it was rewritten.")
    @State
    public static class SlicedAllReducesCombineTheirOwnParts extends TwoRanks
    {
        private static final int COUNT = 96;
        private final ByteOperator sum = Op.SUM.over(ElementType.LONG);
        private final UnsafeBuffer[] in = { new UnsafeBuffer(new byte[COUNT * 8]), new UnsafeBuffer(new byte[COUNT * 8]) };
        private final UnsafeBuffer[][] out = {
            { new UnsafeBuffer(new byte[COUNT * 8]), new UnsafeBuffer(new byte[COUNT * 8]) },
            { new UnsafeBuffer(new byte[COUNT * 8]), new UnsafeBuffer(new byte[COUNT * 8]) } };

        @Actor
        public void rank0()
        {
            twoCalls(rank0, 0);
        }

        @Actor
        public void rank1()
        {
            twoCalls(rank1, 1);
        }

        private void twoCalls(final SharedCollectives ranks, final int rank)
        {
            for (int call = 0; call < 2; call++)
            {
                for (int i = 0; i < COUNT; i++)
                {
                    in[rank].putLong(i * 8, value(rank, call, i));
                }
                ranks.reduce(in[rank], 0, out[rank][call], 0, COUNT * 8, sum, Long.BYTES, 0, true, Collectives.ALL_REDUCE_TAG);
            }
        }

        private static long value(final int rank, final int call, final int i)
        {
            return (rank + 1) * 1_000_000L + call * 1_000L + i;
        }

        @Arbiter
        public void compare(final JJ_Result r)
        {
            for (int call = 0; call < 2; call++)
            {
                long wrong = 0;
                for (int i = 0; i < COUNT; i++)
                {
                    final long expected = value(0, call, i) + value(1, call, i);
                    wrong += (out[0][call].getLong(i * 8) != expected ? 1 : 0) + (out[1][call].getLong(i * 8) != expected ? 1 : 0);
                }
                if (call == 0)
                {
                    r.r1 = wrong;
                }
                else
                {
                    r.r2 = wrong;
                }
            }
        }
    }
}
