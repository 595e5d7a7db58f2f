package io.sm4j.transport;

import io.sm4j.layout.DoorbellDescriptor;
import org.agrona.concurrent.AtomicBuffer;

import java.lang.invoke.VarHandle;

import static io.sm4j.layout.DoorbellDescriptor.ARMED;
import static io.sm4j.layout.DoorbellDescriptor.AWAKE;
import static io.sm4j.layout.DoorbellDescriptor.RUNG;

/**
 * The doorbell word's protocol ({@link DoorbellDescriptor}), every access in one place: a
 * rank that is about to sleep {@link #arm}s, then looks at every in-bound path once more; a publisher stores
 * its message, then {@link #fence}s and {@link #takeRing takes the ring} if the rank is armed.
 * <p>
 * Implementation notes: this is Dekker's pattern (store mine, load theirs, on both sides), which needs a
 * full fence between the store and the load on BOTH sides: a release store may be reordered with a later
 * load of another location (x86's store buffer does it), and then the sleeper misses the message while the
 * publisher misses ARMED. Each side fences explicitly: the sleeper after arming, the publisher once per
 * pass that published. jcstress {@code DoorbellStress} shows the pattern holding, and
 * the variant without the publisher's fence losing wake-ups.
 */
final class BellWord
{
    private BellWord()
    {
    }

    /**
     * Announces that the caller will sleep unless its next look at its in-bound paths finds something.
     */
    static void arm(final AtomicBuffer word)
    {
        word.putLongVolatile(0, ARMED);
        // NOTE: full fence: the store above before the loads of the last look. A volatile store alone orders
        // only later volatile loads in the JMM; the last look reads with acquire loads, which a weaker
        // acquire (ARM's LDAPR) may let pass the store.
        VarHandle.fullFence();
    }

    /**
     * The rank is awake (woken, or it found work after arming): publishers stop ringing.
     */
    static void disarm(final AtomicBuffer word)
    {
        // release is enough: a publisher that still reads ARMED rings once more, which only ends a later sleep early
        word.putLongRelease(0, AWAKE);
    }

    /**
     * The publisher's fence: its stores of a message (release) before its loads of doorbell words.
     */
    static void fence()
    {
        // NOTE: full fence, pairs with the volatile store in arm(); a release alone lets the load pass the store.
        VarHandle.fullFence();
    }

    /**
     * After {@link #fence}: if the rank is armed, takes the ring (ARMED to RUNG, so one publisher rings).
     *
     * @return true if the caller must wake the rank.
     */
    static boolean takeRing(final AtomicBuffer word)
    {
        // the word is on the rank's own line and changes only when it falls asleep or wakes: a cheap read
        return word.getLongVolatile(0) == ARMED && word.compareAndSetLong(0, ARMED, RUNG);
    }
}
