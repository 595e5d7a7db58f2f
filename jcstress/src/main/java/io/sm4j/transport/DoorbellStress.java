package io.sm4j.transport;

import io.sm4j.fifo.FifoConsumer;
import io.sm4j.fifo.FifoProducer;
import io.sm4j.layout.CbIndexDescriptor;
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
 * The doorbell's arm/ring protocol ({@link BellWord}): a rank about to sleep arms, then looks at its FIFO
 * once more; a sender publishes into the FIFO, then reads the rank's word and rings if it is armed. A
 * wake-up is lost when the message is published, the last look missed it and the sender did not ring: the
 * rank would sleep with a message waiting. In package {@code io.sm4j.transport} because {@link BellWord} is
 * package-private.
 * <p>
 * Real classes: {@link FifoProducer} / {@link FifoConsumer} (the release publish and the acquire peek a
 * message takes) over off-heap memory, and {@link BellWord} (the doorbell word a {@code Doorbell} arms,
 * with its fence, and a {@code PeerBells} reads after {@code afterPublish}'s fence). r1 = the last look saw the message, r2 = the
 * sender took the ring.
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

        void sleeper(final ZZ_Result r)
        {
            BellWord.arm(word);
            r.r1 = consumer.peek() != CbIndexDescriptor.EMPTY_SLOT;
        }
    }

    /**
     * The protocol as the endpoint runs it: arm (a volatile store), last look; publish (a release store),
     * full fence, take the ring.
     */
    @JCStressTest
    @Outcome(id = "true, true", expect = ACCEPTABLE, desc = "The last look found the message and the sender rang too (a spare wake-up).")
    @Outcome(id = "true, false", expect = ACCEPTABLE, desc = "The last look found the message; the sender saw the rank awake.")
    @Outcome(id = "false, true", expect = ACCEPTABLE, desc = "The last look came first; the sender found the rank armed and rang.")
    @Outcome(id = "false, false", expect = FORBIDDEN, desc = "Lost wake-up: the rank sleeps with a message waiting.")
    @Outcome(expect = FORBIDDEN, desc = "Not a combination of the two answers.")
    @State
    public static class NoLostWakeUp extends Rank
    {
        @Actor
        public void rank(final ZZ_Result r)
        {
            sleeper(r);
        }

        @Actor
        public void sender(final ZZ_Result r)
        {
            producer.offer(8);
            BellWord.fence();
            r.r2 = BellWord.takeRing(word);
        }
    }

    /**
     * The broken variant, kept to show that the fence matters: the sender reads the word right after its
     * release publish. The load may pass the store (x86's store buffer), and both sides miss each other. The
     * lost wake-up is reported as interesting here rather than forbidden, so the build stays green while the
     * count shows the failure (docs/jcstress-notes.md has the figures).
     */
    @JCStressTest
    @Outcome(id = "true, true", expect = ACCEPTABLE, desc = "The last look found the message and the sender rang too.")
    @Outcome(id = "true, false", expect = ACCEPTABLE, desc = "The last look found the message.")
    @Outcome(id = "false, true", expect = ACCEPTABLE, desc = "The sender rang.")
    @Outcome(id = "false, false", expect = ACCEPTABLE_INTERESTING, desc = "Lost wake-up: what the missing fence allows.")
    @Outcome(expect = FORBIDDEN, desc = "Not a combination of the two answers.")
    @State
    public static class WithoutTheFenceWakeUpsAreLost extends Rank
    {
        @Actor
        public void rank(final ZZ_Result r)
        {
            sleeper(r);
        }

        @Actor
        public void sender(final ZZ_Result r)
        {
            producer.offer(8);
            r.r2 = BellWord.takeRing(word);
        }
    }
}
