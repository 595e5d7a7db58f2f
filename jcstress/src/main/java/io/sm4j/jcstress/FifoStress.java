package io.sm4j.jcstress;

import io.sm4j.fifo.FifoConsumer;
import io.sm4j.fifo.FifoProducer;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Memory-ordering properties of the per-pair FIFO ({@link FifoProducer} / {@link FifoConsumer}) over
 * off-heap memory, as the segment uses it.
 */
public final class FifoStress
{
    private FifoStress()
    {
    }

    /**
     * Publication: a consumer that sees a fragment's offset in the queue also sees the fragment's contents
     * written before the producer's release publish.
     */
    @JCStressTest
    @Outcome(id = "0, -1", expect = ACCEPTABLE, desc = "Consumer polled before the publish.")
    @Outcome(id = "64, 42", expect = ACCEPTABLE, desc = "Consumer saw the slot and the payload.")
    @Outcome(expect = FORBIDDEN, desc = "Slot seen without its payload, or a wrong slot value.")
    @State
    public static class PayloadVisibleWithSlot
    {
        private final UnsafeBuffer memory = new UnsafeBuffer(BufferUtil.allocateDirectAligned(256, 64));
        private final FifoProducer producer =
            new FifoProducer(new UnsafeBuffer(memory, 0, 32), 4, new UnsafeBuffer(memory, 32, 8));
        private final FifoConsumer consumer =
            new FifoConsumer(new UnsafeBuffer(memory, 0, 32), 4, new UnsafeBuffer(memory, 40, 8), 1);

        @Actor
        public void sender()
        {
            memory.putLong(64, 42);
            producer.offer(64);
        }

        @Actor
        public void receiver(final JJ_Result r)
        {
            final long slot = consumer.poll();
            r.r1 = slot;
            r.r2 = slot == 0 ? -1 : memory.getLong((int)slot);
        }
    }

    /**
     * Lazy free and wrap-around on a 2-slot queue with batch 1: the producer offers words 1, 2, 3 while the
     * consumer polls three times; the arbiter then drains the rest. r1 = words the consumer saw, r2 = offers
     * accepted; -1 in both if any word was seen twice, out of order, or lost. The third offer can only be
     * accepted after the consumer consumed (and cleared) the first word.
     */
    @JCStressTest
    @Outcome(id = { "0, 2", "1, 2", "2, 2", "1, 3", "2, 3" }, expect = ACCEPTABLE,
        desc = "Consumer saw an in-order prefix of the accepted words; the rest were drained later.")
    @Outcome(id = "3, 3", expect = ACCEPTABLE_INTERESTING,
        desc = "The first slot was cleared in time for the third offer, and the consumer saw all three.")
    @Outcome(expect = FORBIDDEN, desc = "Duplicate, reordered or lost word, or an offer into an unconsumed slot.")
    @State
    public static class OrderAcrossWrapAround
    {
        private final UnsafeBuffer memory = new UnsafeBuffer(BufferUtil.allocateDirectAligned(256, 64));
        private final FifoProducer producer =
            new FifoProducer(new UnsafeBuffer(memory, 0, 16), 2, new UnsafeBuffer(memory, 64, 8));
        private final FifoConsumer consumer =
            new FifoConsumer(new UnsafeBuffer(memory, 0, 16), 2, new UnsafeBuffer(memory, 72, 8), 1);
        private final long[] polled = new long[3];

        @Actor
        public void sender()
        {
            producer.offer(8);
            producer.offer(16);
            producer.offer(24);
        }

        @Actor
        public void receiver()
        {
            polled[0] = consumer.poll();
            polled[1] = consumer.poll();
            polled[2] = consumer.poll();
        }

        @Arbiter
        public void verdict(final JJ_Result r)
        {
            final boolean ok = inOrderOnce(polled, consumer, producer);
            long seen = 0;
            for (final long word : polled)
            {
                seen += word != 0 ? 1 : 0;
            }
            r.r1 = ok ? seen : -1;
            r.r2 = ok ? producer.head() : -1;
        }
    }

    /**
     * Lazy free in batches of 2 on a 4-slot queue: the consumer clears two slots at a time, so the producer's
     * fifth offer succeeds only once the consumer has consumed and released the first two. The producer
     * offers six words, the consumer polls six times, the arbiter drains the rest. r1 = 1 if every accepted
     * word was seen exactly once and in order (a slot reused before it was consumed would lose a word),
     * r2 = offers accepted.
     */
    @JCStressTest
    @Outcome(id = { "1, 4", "1, 5" }, expect = ACCEPTABLE, desc = "Queue full until the consumer freed a batch.")
    @Outcome(id = "1, 6", expect = ACCEPTABLE_INTERESTING, desc = "Both batches freed in time for all six offers.")
    @Outcome(expect = FORBIDDEN, desc = "Duplicate, reordered or lost word, or fewer than four offers accepted.")
    @State
    public static class LazyFreeInBatches
    {
        private static final int OFFERS = 6;
        private final UnsafeBuffer memory = new UnsafeBuffer(BufferUtil.allocateDirectAligned(256, 64));
        private final FifoProducer producer =
            new FifoProducer(new UnsafeBuffer(memory, 0, 32), 4, new UnsafeBuffer(memory, 64, 8));
        private final FifoConsumer consumer =
            new FifoConsumer(new UnsafeBuffer(memory, 0, 32), 4, new UnsafeBuffer(memory, 72, 8), 2);
        private final long[] polled = new long[OFFERS];

        @Actor
        public void sender()
        {
            for (int i = 1; i <= OFFERS && producer.offer(8L * i); i++)
            {
                // a refused offer ends the run: the words accepted stay a prefix
            }
        }

        @Actor
        public void receiver()
        {
            for (int i = 0; i < OFFERS; i++)
            {
                polled[i] = consumer.poll();
            }
        }

        @Arbiter
        public void verdict(final JJ_Result r)
        {
            r.r1 = inOrderOnce(polled, consumer, producer) ? 1 : 0;
            r.r2 = producer.head();
        }
    }

    /**
     * Drains what the consumer left and checks that the words 8, 16, 24, ... the producer had accepted were
     * each seen exactly once, in order, across {@code polled} (0 = nothing) and the drain.
     */
    private static boolean inOrderOnce(final long[] polled, final FifoConsumer consumer, final FifoProducer producer)
    {
        long expected = 8;
        boolean ok = true;
        for (final long word : polled)
        {
            if (word != 0)
            {
                ok &= word == expected;
                expected += 8;
            }
        }
        for (long word = consumer.poll(); word != 0; word = consumer.poll())
        {
            ok &= word == expected;
            expected += 8;
        }
        return ok && expected / 8 - 1 == producer.head();
    }
}
