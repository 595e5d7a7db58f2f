package io.sm4j.collective;

import io.sm4j.layout.CollectiveSlotDescriptor;
import io.sm4j.segment.Sm4jException;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.JJJJ_Result;
import org.openjdk.jcstress.infra.results.JJJ_Result;
import org.openjdk.jcstress.infra.results.JJ_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The collective region's step protocol ({@link SharedCollectives}), with the real class over off-heap slots:
 * a writer's half and call record are visible once its step is (release / acquire), and a half is not
 * rewritten two steps later until every reader has posted the step between (so a reader never reads the
 * later data in place of the earlier); a rank's data read in place from its shared buffer is read before the
 * rank's call returns. In package {@code io.sm4j.collective} because
 * {@link SharedCollectives} is package-private.
 */
public final class CollectiveSlotStress
{
    private static final int CACHELINE = 64;
    private static final int BUFFER = 1024;

    private CollectiveSlotStress()
    {
    }

    /**
     * Two ranks' slots, each waiting by spinning on the other's step word; a rank's shared buffer (chunk id: its
     * rank), if {@link #shared} names one, is read in place by the other.
     */
    abstract static class TwoRanks implements SharedRegion
    {
        final AtomicBuffer[] slots = new AtomicBuffer[2];
        final DirectBuffer[] shared = new DirectBuffer[2];
        final SharedCollectives rank0;
        final SharedCollectives rank1;

        private final int bufferSize;

        TwoRanks()
        {
            this(BUFFER);
        }

        TwoRanks(final int bufferSize)
        {
            this.bufferSize = bufferSize;
            final int stride = (int)CollectiveSlotDescriptor.stride(CACHELINE, bufferSize);
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
            return bufferSize;
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
        public long sourcePosition(
            final DirectBuffer buffer, final int offset, final int length, final int blockLength, final int call)
        {
            return buffer == shared[0] || buffer == shared[1] ? offset : -1;
        }

        @Override
        public void callEnded()
        {
        }

        @Override
        public long sourceChunk(final DirectBuffer buffer)
        {
            return buffer == shared[0] ? 0 : 1;
        }

        @Override
        public void copySource(
            final int rank, final long chunkId, final long position, final MutableDirectBuffer into, final int offset,
            final int length)
        {
            into.putBytes(offset, shared[(int)chunkId], (int)position, length);
        }

        @Override
        public void abort(final String reason)
        {
            throw new IllegalStateException(reason);
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

    /** Two ranks' send and receive buffers of a call that reads in place, each rank's data {@link #BLOCK} bytes per rank. */
    abstract static class InPlaceRanks extends TwoRanks
    {
        static final int BLOCK = SharedCollectives.SINGLE_COPY_MIN;
        final UnsafeBuffer send0;
        final UnsafeBuffer send1;
        final UnsafeBuffer recv0 = new UnsafeBuffer(new byte[2 * BLOCK]);
        final UnsafeBuffer recv1 = new UnsafeBuffer(new byte[2 * BLOCK]);

        /**
         * @param sendLength each rank's send buffer's bytes; the region's buffer holds two halves of that.
         */
        InPlaceRanks(final int sendLength)
        {
            super(2 * sendLength);
            send0 = new UnsafeBuffer(new byte[sendLength]);
            send1 = new UnsafeBuffer(new byte[sendLength]);
        }
    }

    /**
     * Rank 0 allGathers from its shared buffer (read in place by rank 1, in one step of a half) and
     * overwrites it as soon as its call returns; rank 1 allGathers from an array. Rank 1 must have rank 0's
     * bytes as they were during the call, first and last, and rank 0 rank 1's.
     */
    @JCStressTest
    @Outcome(id = "1, 1, 2", expect = ACCEPTABLE, desc = "Rank 1 read rank 0's buffer in place before rank 0's call returned.")
    @Outcome(expect = FORBIDDEN, desc = "Rank 0 returned while rank 1 still read its buffer, or a block is missing.")
    @State
    public static class InPlaceAllGathersReadBeforeReturn extends InPlaceRanks
    {
        public InPlaceAllGathersReadBeforeReturn()
        {
            super(BLOCK);
            send0.setMemory(0, BLOCK, (byte)1);
            send1.setMemory(0, BLOCK, (byte)2);
            shared[0] = send0;
        }

        @Actor
        public void rank0()
        {
            rank0.gather(send0, 0, BLOCK, recv0, 0, 0, true, Collectives.ALL_GATHER_TAG);
            send0.setMemory(0, BLOCK, (byte)9);
        }

        @Actor
        public void rank1()
        {
            rank1.gather(send1, 0, BLOCK, recv1, 0, 0, true, Collectives.ALL_GATHER_TAG);
        }

        @Arbiter
        public void arbiter(final III_Result r)
        {
            r.r1 = recv1.getByte(0);
            r.r2 = recv1.getByte(BLOCK - 1);
            r.r3 = recv0.getByte(BLOCK);
        }
    }

    /**
     * Both ranks allToAll from their shared buffers (so each reads the other's block whole in the first step,
     * the last) and overwrite them as soon as their calls return: each must have the other's block as it was.
     */
    @JCStressTest
    @Outcome(id = "2, 2, 1", expect = ACCEPTABLE, desc = "Each rank read the other's block in place before the other returned.")
    @Outcome(expect = FORBIDDEN, desc = "A rank returned while the other still read its buffer, or a block is missing.")
    @State
    public static class InPlaceAllToAllsReadBeforeReturn extends InPlaceRanks
    {
        public InPlaceAllToAllsReadBeforeReturn()
        {
            super(2 * BLOCK);
            send0.setMemory(BLOCK, BLOCK, (byte)1); // rank 0's block for rank 1
            send1.setMemory(0, BLOCK, (byte)2); // rank 1's block for rank 0
            shared[0] = send0;
            shared[1] = send1;
        }

        @Actor
        public void rank0()
        {
            rank0.allToAll(send0, 0, recv0, 0, BLOCK, Collectives.ALL_TO_ALL_TAG);
            send0.setMemory(0, 2 * BLOCK, (byte)9);
        }

        @Actor
        public void rank1()
        {
            rank1.allToAll(send1, 0, recv1, 0, BLOCK, Collectives.ALL_TO_ALL_TAG);
            send1.setMemory(0, 2 * BLOCK, (byte)9);
        }

        @Arbiter
        public void arbiter(final III_Result r)
        {
            r.r1 = recv0.getByte(BLOCK);
            r.r2 = recv0.getByte(2 * BLOCK - 1);
            r.r3 = recv1.getByte(BLOCK - 1) == 1 && recv1.getByte(0) == 1 ? 1 : 0;
        }
    }

    /** Two ranks that allReduce one long (SUM), inline in the step's line. */
    abstract static class LongAllReduces extends TwoRanks
    {
        private final ByteOperator sum = Op.SUM.over(ElementType.LONG);
        private final UnsafeBuffer out0 = new UnsafeBuffer(new byte[8]);
        private final UnsafeBuffer in0 = new UnsafeBuffer(new byte[8]);
        private final UnsafeBuffer out1 = new UnsafeBuffer(new byte[8]);
        private final UnsafeBuffer in1 = new UnsafeBuffer(new byte[8]);

        /**
         * @return the sum over both ranks of their {@code value}s, as {@code rank} (0 or 1) receives it.
         */
        final long allReduce(final int rank, final long value)
        {
            final UnsafeBuffer out = rank == 0 ? out0 : out1;
            final UnsafeBuffer in = rank == 0 ? in0 : in1;
            out.putLong(0, value);
            (rank == 0 ? rank0 : rank1).reduce(out, 0, in, 0, 8, sum, 0, true, Collectives.ALL_REDUCE_TAG);
            return in.getLong(0);
        }
    }

    /**
     * Both ranks allReduce (SUM of longs) three times, inline in the step's line: each must get the same sums,
     * from both ranks' vectors of that call (the arbiter marks rank 0's sums that differ from rank 1's with -1).
     * The third call writes where the first did; each rank read both ranks' posts of the call before, so it
     * starts the next without looking at the other's step again ({@code begin}), and still must not rewrite the
     * first call's place before the other has combined it (which it has once it posted the second).
     */
    @JCStressTest
    @Outcome(id = "3, 30, 300", expect = ACCEPTABLE, desc = "Every call combined both ranks' vectors of that call.")
    @Outcome(expect = FORBIDDEN, desc = "A combine read a vector of another call, or one not yet written.")
    @State
    public static class AllReducesCombineTheirOwnCallsVectors extends LongAllReduces
    {
        private long first0;
        private long second0;
        private long third0;

        @Actor
        public void rank0()
        {
            first0 = allReduce(0, 1);
            second0 = allReduce(0, 10);
            third0 = allReduce(0, 100);
        }

        @Actor
        public void rank1(final JJJ_Result r)
        {
            r.r1 = allReduce(1, 2);
            r.r2 = allReduce(1, 20);
            r.r3 = allReduce(1, 200);
        }

        @Arbiter
        public void compare(final JJJ_Result r)
        {
            if (first0 != r.r1 || second0 != r.r2 || third0 != r.r3)
            {
                r.r1 = -1;
            }
        }
    }

    /**
     * An 8-byte allReduce, then three 8-byte bcasts from rank 0, all inline in the step's line: the second bcast
     * (step 3) writes where the allReduce (step 1) did. The root reads nothing in a bcast, so its
     * {@code begin} may pass over rank 1 at step 2 only (its allReduce read rank 1's post of step 1), and must
     * wait at step 3 for rank 1's post of step 2, which rank 1 makes only once it has combined the allReduce.
     * Rank 1 must get the sum 3 (as rank 0) and 10, 20, 30; a {@code begin} that skipped one step too many
     * would let the root's 20 reach rank 1's allReduce.
     */
    @JCStressTest
    @Outcome(id = "3, 10, 20, 30", expect = ACCEPTABLE, desc = "The allReduce and every bcast read their own call's data.")
    @Outcome(expect = FORBIDDEN, desc = "A read found another call's data, or data not yet written.")
    @State
    public static class BcastsAfterAnAllReduceWaitForItsReader extends LongAllReduces
    {
        private final UnsafeBuffer out = new UnsafeBuffer(new byte[8]);
        private final UnsafeBuffer in = new UnsafeBuffer(new byte[8]);
        private long sum0;

        @Actor
        public void root()
        {
            sum0 = allReduce(0, 1);
            for (long value = 10; value <= 30; value += 10)
            {
                out.putLong(0, value);
                rank0.bcast(out, 0, 8, 0, Collectives.BCAST_TAG);
            }
        }

        @Actor
        public void reader(final JJJJ_Result r)
        {
            r.r1 = allReduce(1, 2);
            r.r2 = received();
            r.r3 = received();
            r.r4 = received();
        }

        /**
         * @return the long of rank 0's next bcast, as rank 1 receives it.
         */
        private long received()
        {
            rank1.bcast(in, 0, 8, 0, Collectives.BCAST_TAG);
            return in.getLong(0);
        }

        @Arbiter
        public void compare(final JJJJ_Result r)
        {
            if (sum0 != r.r1)
            {
                r.r1 = -1;
            }
        }
    }

    /**
     * Rank 0 scatters twice to two ranks with counts only it has: first {8, 600} (600 bytes take three steps of
     * a 512-byte half, whose pieces are a header of counts shorter), then {8, 8}. Rank 1 learns each call's
     * length from the root's first post (it starts as if its block went on for ever) and checks the header's
     * count for it: it must receive the first long of its 600 bytes, their last long, and the second call's
     * long, each whole, and no count error (a read of the root's record or header before its post would give
     * a length or count of 0, or of the other call).
     */
    @JCStressTest
    @Outcome(id = "1, 2, 3", expect = ACCEPTABLE, desc = "Both calls delivered rank 1's block, agreed on and checked.")
    @Outcome(expect = FORBIDDEN, desc = "Rank 1 took a length, a count or a piece of a post it had not yet seen.")
    @State
    public static class ScattervsLearnTheirLengthFromTheRoot extends TwoRanks
    {
        private static final int LONG_BLOCK = 600;
        private final UnsafeBuffer first = new UnsafeBuffer(new byte[8 + LONG_BLOCK]);
        private final UnsafeBuffer second = new UnsafeBuffer(new byte[16]);
        private final UnsafeBuffer in = new UnsafeBuffer(new byte[LONG_BLOCK]);
        private final UnsafeBuffer mine = new UnsafeBuffer(new byte[8]);

        @Actor
        public void root()
        {
            first.putLong(8, 1);
            first.putLong(8 + LONG_BLOCK - 8, 2);
            rank0.scatterv(first, 0, new int[]{ 8, LONG_BLOCK }, new int[]{ 0, 8 }, mine, 0, 8, 0, Collectives.SCATTERV_TAG);
            second.putLong(8, 3);
            rank0.scatterv(second, 0, new int[]{ 8, 8 }, new int[]{ 0, 8 }, mine, 0, 8, 0, Collectives.SCATTERV_TAG);
        }

        @Actor
        public void receiver(final III_Result r)
        {
            try
            {
                rank1.scatterv(null, 0, null, null, in, 0, LONG_BLOCK, 0, Collectives.SCATTERV_TAG);
                r.r1 = (int)in.getLong(0);
                r.r2 = (int)in.getLong(LONG_BLOCK - 8);
                rank1.scatterv(null, 0, null, null, in, 0, 8, 0, Collectives.SCATTERV_TAG);
                r.r3 = (int)in.getLong(0);
            }
            catch (final Sm4jException ex)
            {
                r.r1 = -1;
            }
        }
    }

    /**
     * Two calls of a long reduction on each rank, rank r's input element i in call c being
     * {@code 1,000,000 (r + 1) + 1,000 c + i}; the arbiter counts, per call, the elements of both ranks' results
     * that differ from what they should be. The tests declare their own {@code @Actor}s and {@code @Arbiter},
     * which call {@link #twoCalls} and {@link #countWrong}: jcstress takes only a test class's declared methods
     * (moved here, the build fails with "@JCStressTest defines no @Result to work with").
     */
    abstract static class TwoLongReductions extends TwoRanks
    {
        final ByteOperator sum = Op.SUM.over(ElementType.LONG);
        final UnsafeBuffer[] in = new UnsafeBuffer[2];
        final UnsafeBuffer[][] out = new UnsafeBuffer[2][2];
        private final int outCount;

        TwoLongReductions(final int inCount, final int outCount)
        {
            this.outCount = outCount;
            for (int rank = 0; rank < 2; rank++)
            {
                in[rank] = new UnsafeBuffer(new byte[inCount * 8]);
                out[rank][0] = new UnsafeBuffer(new byte[outCount * 8]);
                out[rank][1] = new UnsafeBuffer(new byte[outCount * 8]);
            }
        }

        /** Rank {@code rank}'s call {@code call}: from {@code in[rank]} into {@code out[rank][call]}. */
        abstract void call(SharedCollectives ranks, int rank, int call);

        /** @return element {@code i} of rank {@code rank}'s result of call {@code call}. */
        abstract long expected(int rank, int call, int i);

        static long value(final int rank, final int call, final int i)
        {
            return (rank + 1) * 1_000_000L + call * 1_000L + i;
        }

        void twoCalls(final SharedCollectives ranks, final int rank)
        {
            for (int call = 0; call < 2; call++)
            {
                for (int i = 0; i < in[rank].capacity() / 8; i++)
                {
                    in[rank].putLong(i * 8, value(rank, call, i));
                }
                call(ranks, rank, call);
            }
        }

        void countWrong(final JJ_Result r)
        {
            final long[] wrong = new long[2];
            for (int call = 0; call < 2; call++)
            {
                for (int rank = 0; rank < 2; rank++)
                {
                    for (int i = 0; i < outCount; i++)
                    {
                        wrong[call] += out[rank][call].getLong(i * 8) != expected(rank, call, i) ? 1 : 0;
                    }
                }
            }
            r.r1 = wrong[0];
            r.r2 = wrong[1];
        }
    }

    /**
     * Two allReduces of 96 longs (768 bytes, longer than a step at halves of 512 bytes): sliced, each in 4
     * steps (parts of 336 bytes: two slices of 168; the last step carries only the combined slices), so every
     * half is reused within a call and across the two.
     */
    @JCStressTest
    @Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "Every element of both calls is the sum of that call's vectors.")
    @Outcome(expect = FORBIDDEN, desc = "A slice was read before it was written, or after it was rewritten.")
    @State
    public static class SlicedAllReducesCombineTheirOwnParts extends TwoLongReductions
    {
        private static final int COUNT = 96;

        public SlicedAllReducesCombineTheirOwnParts()
        {
            super(COUNT, COUNT);
        }

        @Override
        void call(final SharedCollectives ranks, final int rank, final int call)
        {
            ranks.reduce(in[rank], 0, out[rank][call], 0, COUNT * 8, sum, 0, true, Collectives.ALL_REDUCE_TAG);
        }

        @Override
        long expected(final int rank, final int call, final int i)
        {
            return value(0, call, i) + value(1, call, i);
        }

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

        @Arbiter
        public void compare(final JJ_Result r)
        {
            countWrong(r);
        }
    }

    /**
     * Two reduceScatters of 2 blocks of 48 longs (384 bytes a block, slices of 168 bytes at halves of 512: 3
     * steps each, so halves are reused within a call and across the two).
     */
    @JCStressTest
    @Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "Every element of both calls is the sum of that call's blocks.")
    @Outcome(expect = FORBIDDEN, desc = "A piece was read before it was written, or after it was rewritten.")
    @State
    public static class ReduceScattersCombineTheirOwnPieces extends TwoLongReductions
    {
        private static final int BLOCK = 48;

        public ReduceScattersCombineTheirOwnPieces()
        {
            super(2 * BLOCK, BLOCK);
        }

        @Override
        void call(final SharedCollectives ranks, final int rank, final int call)
        {
            ranks.reduceScatter(in[rank], 0, out[rank][call], 0, BLOCK * 8, sum, Collectives.REDUCE_SCATTER_TAG);
        }

        @Override
        long expected(final int rank, final int call, final int i)
        {
            return value(0, call, rank * BLOCK + i) + value(1, call, rank * BLOCK + i);
        }

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

        @Arbiter
        public void compare(final JJ_Result r)
        {
            countWrong(r);
        }
    }
}
