package io.sm4j.transport;

import io.sm4j.fifo.FifoConsumer;
import io.sm4j.fifo.FifoProducer;
import io.sm4j.layout.CbIndexDescriptor;
import io.sm4j.layout.DoorbellDescriptor;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZ_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The doorbell's arm/ring protocol ({@link BellWord}): a rank about to sleep arms, then looks at its FIFO;
 * a sender publishes into the FIFO, then reads the rank's word and rings if it is armed. A wake-up is lost
 * when the message is published, the look missed it and the sender did not ring: the rank would sleep with a
 * message waiting. In package {@code io.sm4j.transport} because {@link BellWord} is package-private.
 * <p>
 * Real classes: {@link FifoProducer} / {@link FifoConsumer} (the release publish and the acquire peek a
 * message takes) over off-heap memory, and {@link BellWord} (the doorbell word a {@code Doorbell} arms,
 * with its fence, and a {@code Publication} reads after a publish). r1 = the first look saw the message,
 * r2 = the sender took the ring.
 */
public final class DoorbellStress
{
    private DoorbellStress()
    {
    }

    /** A FIFO of two slots, its head and tail, and a doorbell word, each on its own line. */
    abstract static class Rank
    {
        final UnsafeBuffer memory = new UnsafeBuffer(BufferUtil.allocateDirectAligned(512, 64));
        final FifoProducer producer =
            new FifoProducer(new UnsafeBuffer(memory, 0, 16), 2, new UnsafeBuffer(memory, 64, 8));
        final FifoConsumer consumer =
            new FifoConsumer(new UnsafeBuffer(memory, 0, 16), 2, new UnsafeBuffer(memory, 128, 8), 1);
        final UnsafeBuffer word = new UnsafeBuffer(memory, 192, 8);

        /**
         * The rank: arms, then looks at its FIFO.
         *
         * @return true if the look saw the message.
         */
        boolean armAndLook()
        {
            BellWord.arm(word, DoorbellDescriptor.ARMED);
            return consumer.peek() != CbIndexDescriptor.EMPTY_SLOT;
        }

        /**
         * The sender: publishes into the FIFO, fences if told to, then takes the ring if the rank is armed.
         *
         * @return true if it took the ring.
         */
        boolean publishAndRing(final boolean fence)
        {
            producer.offer(8);
            if (fence)
            {
                BellWord.fence();
            }
            return BellWord.takeRing(word) == DoorbellDescriptor.ARMED;
        }
    }

    /**
     * The protocol as a data publisher runs it: the sender reads the word right after its release publish,
     * without a fence (a fence there costs a cacheline round trip per message). The read may pass the store
     * (x86's store buffer), and the look and the sender miss each other: reported as interesting, and counted
     * (docs/jcstress-notes.md). That is what the rank's second look, after its nap, is for; no jcstress test
     * can time it (an arbiter runs after both actors, when the message is always visible), so the endpoint's
     * end-to-end check is WaitTest's wake-up storm.
     */
    @JCStressTest
    @Outcome(id = {"true, true", "true, false"}, expect = ACCEPTABLE, desc = "The look found the message.")
    @Outcome(id = "false, true", expect = ACCEPTABLE, desc = "The look came first; the sender found the rank armed and rang.")
    @Outcome(id = "false, false", expect = ACCEPTABLE_INTERESTING, desc = "The look and the sender missed each other: the second look must find it.")
    @Outcome(expect = FORBIDDEN, desc = "Not a combination of the two answers.")
    @State
    public static class WithoutTheFenceTheFirstLookCanMiss extends Rank
    {
        @Actor
        public void rank(final ZZ_Result r)
        {
            r.r1 = armAndLook();
        }

        @Actor
        public void sender(final ZZ_Result r)
        {
            r.r2 = publishAndRing(false);
        }
    }

    /**
     * A publisher whose change every rank must see at its first look (a rank that detaches or aborts the
     * job) fences between its store and its read of the word: then one look is enough.
     */
    @JCStressTest
    @Outcome(id = "true, true", expect = ACCEPTABLE, desc = "The look found the message and the sender rang too (a spare wake-up).")
    @Outcome(id = "true, false", expect = ACCEPTABLE, desc = "The look found the message; the sender saw the rank awake.")
    @Outcome(id = "false, true", expect = ACCEPTABLE, desc = "The look came first; the sender found the rank armed and rang.")
    @Outcome(id = "false, false", expect = FORBIDDEN, desc = "Lost wake-up: the rank sleeps with a message waiting.")
    @Outcome(expect = FORBIDDEN, desc = "Not a combination of the two answers.")
    @State
    public static class WithTheFenceOneLookSuffices extends Rank
    {
        @Actor
        public void rank(final ZZ_Result r)
        {
            r.r1 = armAndLook();
        }

        @Actor
        public void sender(final ZZ_Result r)
        {
            r.r2 = publishAndRing(true);
        }
    }
}
