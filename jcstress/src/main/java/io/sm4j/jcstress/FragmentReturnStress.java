package io.sm4j.jcstress;

import io.sm4j.fifo.FifoConsumer;
import io.sm4j.fifo.FifoProducer;
import io.sm4j.fifo.FragmentPool;
import io.sm4j.layout.CbIndexDescriptor;
import io.sm4j.layout.FragmentDescriptor;
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
 * Memory-ordering properties of the return path of a max-size fragment: the receiver reads the fragment in
 * place, then returns it through the reverse FIFO (a word with {@link CbIndexDescriptor#RETURN_FLAG}); its owner
 * takes it back into its {@link FragmentPool} and writes the next message into it.
 */
public final class FragmentReturnStress
{
    private FragmentReturnStress()
    {
    }

    /**
     * Reuse after return: the receiver's reads of a max-size fragment happen before the sender rewrites it,
     * through the return word (the receiver's release publish of the slot in {@link FifoProducer#offer}, the
     * sender's acquire in {@link FifoConsumer#poll}).
     * <p>
     * Real classes: {@link SegmentLayout} (peers 2, one max-size fragment of 128 bytes per rank),
     * {@link FragmentPool} of rank 0, and one {@link FifoProducer} / {@link FifoConsumer} per direction (0 to 1
     * data, 1 to 0 returns), over off-heap memory. {@code FragmentAccess}, {@code FragmentPoller} and {@code Publication}
     * need a mapped {@code Segment}, so their steps are done here with the buffer operations they use: the
     * header written by plain {@code putInt} at {@link FragmentDescriptor#LENGTH_OFFSET} and
     * {@link FragmentDescriptor#SENDER_OFFSET} of the sender's pool region ({@code writeHeader}), read by plain
     * {@code getInt} ({@code wrapReceived}), the payload read in place by plain loads, the fragment returned
     * as {@code offset | RETURN_FLAG} ({@code FragmentPoller.giveBack}, {@code Publication.enqueue}) and released to the
     * pool on receipt ({@code FragmentPoller.onControlWord}, {@code FragmentAccess.takeBack}).
     * <p>
     * The state publishes message 1 (120 payload bytes, 1 in its first and last words) before the actors run.
     * The receiver polls it, reads header and payload, and returns it; the sender polls the return and, if it
     * got it, acquires the fragment again and writes message 2 (64 payload bytes, 2 in the same words).
     * r1 = the message the receiver read (-1 if header and payload disagree), r2 = 1 if the sender reused the
     * fragment, 0 if the return had not arrived, -1 if the pool refused it or handed out another fragment.
     */
    @JCStressTest
    @Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "Sender polled before the return; receiver read message 1.")
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "Receiver read message 1, then the sender reused the fragment.")
    @Outcome(expect = FORBIDDEN,
        desc = "Receiver saw message 2 or a mix: the fragment was rewritten before the receiver was done with it.")
    @State
    public static class ReadsHappenBeforeReuse
    {
        private static final SegmentLayout LAYOUT = TinyPools.LAYOUT;
        private static final int SENDER = TinyPools.SENDER;
        private static final int FIRST_LENGTH = 120;
        private static final int SECOND_LENGTH = 64;

        private final TinyPools pools = new TinyPools();
        private final long regionBase = pools.regionBase;
        private final UnsafeBuffer region = pools.region;
        private final UnsafeBuffer queues = new UnsafeBuffer(BufferUtil.allocateDirectAligned(512, 64));
        private final FragmentPool pool = new FragmentPool(LAYOUT, SENDER);
        private final FifoConsumer data =
            new FifoConsumer(new UnsafeBuffer(queues, 0, 16), 2, new UnsafeBuffer(queues, 128, 8), 1);
        private final FifoProducer returns =
            new FifoProducer(new UnsafeBuffer(queues, 256, 16), 2, new UnsafeBuffer(queues, 384, 8));
        private final FifoConsumer returned =
            new FifoConsumer(new UnsafeBuffer(queues, 256, 16), 2, new UnsafeBuffer(queues, 448, 8), 1);
        private final long fragment;

        public ReadsHappenBeforeReuse()
        {
            final FifoProducer out =
                new FifoProducer(new UnsafeBuffer(queues, 0, 16), 2, new UnsafeBuffer(queues, 64, 8));
            fragment = pool.acquire();
            write(fragment, FIRST_LENGTH, 1);
            out.offer(fragment);
        }

        @Actor
        public void receiver(final II_Result r)
        {
            final long word = data.poll();
            final int index = (int)(word - regionBase);
            final int length = region.getInt(index + FragmentDescriptor.LENGTH_OFFSET);
            final int sender = region.getInt(index + FragmentDescriptor.SENDER_OFFSET);
            final long first = region.getLong(index + FragmentDescriptor.HEADER_LENGTH);
            final long last = region.getLong(index + FragmentDescriptor.HEADER_LENGTH + FIRST_LENGTH - Long.BYTES);
            final boolean whole = word == fragment && sender == SENDER && first == last &&
                length == (first == 1 ? FIRST_LENGTH : SECOND_LENGTH);
            r.r1 = whole ? (int)first : -1;
            returns.offer(word | CbIndexDescriptor.RETURN_FLAG);
        }

        @Actor
        public void sender(final II_Result r)
        {
            final long word = returned.poll();
            if (word == CbIndexDescriptor.EMPTY_SLOT)
            {
                r.r2 = 0;
                return;
            }
            final boolean released = (word & CbIndexDescriptor.RETURN_FLAG) != 0 &&
                pool.release(word & ~CbIndexDescriptor.RETURN_FLAG);
            final long reused = released ? pool.acquire() : -1;
            if (reused != fragment)
            {
                r.r2 = -1;
                return;
            }
            write(reused, SECOND_LENGTH, 2);
            r.r2 = 1;
        }

        /**
         * A message as {@code FragmentAccess.writeHeader} and a payload copy leave it: plain stores, published
         * by the FIFO offer that follows. The last word is written at the same place for both lengths.
         */
        private void write(final long offset, final int length, final long value)
        {
            final int index = (int)(offset - regionBase);
            region.putInt(index + FragmentDescriptor.LENGTH_OFFSET, length);
            region.putInt(index + FragmentDescriptor.SENDER_OFFSET, SENDER);
            region.putLong(index + FragmentDescriptor.HEADER_LENGTH, value);
            region.putLong(index + FragmentDescriptor.HEADER_LENGTH + FIRST_LENGTH - Long.BYTES, value);
        }
    }
}
