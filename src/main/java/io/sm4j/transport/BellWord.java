package io.sm4j.transport;

import io.sm4j.layout.DoorbellDescriptor;
import org.agrona.concurrent.AtomicBuffer;

import java.lang.invoke.VarHandle;

import static io.sm4j.layout.DoorbellDescriptor.ARMED;
import static io.sm4j.layout.DoorbellDescriptor.ARMED_FUTEX;
import static io.sm4j.layout.DoorbellDescriptor.AWAKE;
import static io.sm4j.layout.DoorbellDescriptor.ABILITIES_OFFSET;
import static io.sm4j.layout.DoorbellDescriptor.ADDRESS_OFFSET;
import static io.sm4j.layout.DoorbellDescriptor.RUNG;

/**
 * The doorbell word's protocol ({@link DoorbellDescriptor}), every access in one place: a
 * rank that is about to sleep {@link #arm}s, then looks at every in-bound path once more, naps, looks a
 * second time, and only then sleeps; a publisher stores its message, then {@link #takeRing takes the ring}
 * if the rank is armed.
 * <p>
 * Implementation notes: this is Dekker's pattern (store mine, load theirs, on both sides), which is exact
 * only with a full fence between the store and the load on BOTH sides: a publisher's read of the word may
 * pass its own release store (x86's store buffer does it), and then the rank's first look misses the
 * message while the publisher misses ARMED. The rank fences after arming; the publisher does not, because
 * that fence waits for the message's cacheline to return from the reader, once per message (it halved the
 * small-message rate). Instead the rank looks a second time after a nap ({@link WaitPolicy}): the store the
 * first look missed was executed before the publisher's read, and a store leaves the store buffer within
 * nanoseconds (an interrupt, a context switch or a VM exit drains it), so the second look, a millisecond
 * later, finds it. A lost wake-up thus costs at most the nap, never a sleep. jcstress {@code DoorbellStress}
 * shows the first look missing without the publisher's fence, and never missing with it ({@link #fence},
 * which a rank that detaches or aborts the job still uses: every rank must see that at once).
 */
final class BellWord
{
    private BellWord()
    {
    }

    /**
     * Announces that the caller will sleep unless its next looks at its in-bound paths (one, a nap, another)
     * find something.
     *
     * @param armed {@link DoorbellDescriptor#ARMED} (it sleeps on its socket) or
     *              {@link DoorbellDescriptor#ARMED_FUTEX} (in a futex wait on the word).
     */
    static void arm(final AtomicBuffer word, final long armed)
    {
        word.putLongVolatile(0, armed);
        // NOTE: full fence: the store above before the loads of the first look. A volatile store alone orders
        // only later volatile loads in the JMM; the look reads with acquire loads, which a weaker
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
     * A publisher's fence, for a change every rank must see at its first look (a detach, an abort): its
     * stores before its loads of doorbell words.
     */
    static void fence()
    {
        // NOTE: full fence, pairs with the one in arm(); a release alone lets the load pass the store.
        VarHandle.fullFence();
    }

    /**
     * @return true if the rank is still armed: no publisher has taken the ring since it armed.
     */
    static boolean isArmed(final AtomicBuffer word)
    {
        final long state = word.getLongVolatile(0);
        return state == ARMED || state == ARMED_FUTEX;
    }

    /**
     * After a publish: if the rank is armed, takes the ring (armed to RUNG, so one publisher rings).
     *
     * @return how the caller must wake the rank: {@link DoorbellDescriptor#ARMED} (its socket),
     *         {@link DoorbellDescriptor#ARMED_FUTEX} (a futex wake), or {@link DoorbellDescriptor#AWAKE}
     *         (not at all).
     */
    static long takeRing(final AtomicBuffer word)
    {
        // the word is on the rank's own line and changes only when it falls asleep or wakes: a cheap read
        // (NOTE: volatile, but it may still pass the caller's earlier release store: see the class notes)
        final long state = word.getLongVolatile(0);
        return (state == ARMED || state == ARMED_FUTEX) && word.compareAndSetLong(0, state, RUNG) ? state : AWAKE;
    }

    /**
     * Says, once, before the rank registers, what it can do: sleep on and ring futexes
     * ({@link DoorbellDescriptor#FUTEX}), read its peers' processes ({@link DoorbellDescriptor#READS}); and where
     * its address word lies in its own process, in that word ({@link DoorbellDescriptor#ADDRESS_OFFSET}).
     */
    static void declareAbilities(final AtomicBuffer word, final boolean futex, final boolean reads)
    {
        // NOTE: plain: the rank's registration (a release) publishes them to peers that see it attached (acquire)
        word.putLong(ABILITIES_OFFSET, (futex ? DoorbellDescriptor.FUTEX : 0) | (reads ? DoorbellDescriptor.READS : 0));
        word.putLong(ADDRESS_OFFSET, word.addressOffset() + ADDRESS_OFFSET);
    }

    /**
     * Says whether the rank could read every peer that reads, out of its process ({@link #declareAbilities} first).
     */
    static void declareChecked(final AtomicBuffer word, final boolean readable)
    {
        final long abilities = word.getLong(ABILITIES_OFFSET) | DoorbellDescriptor.CHECKED |
            (readable ? 0 : DoorbellDescriptor.UNREADABLE);
        // NOTE: release: nothing to publish with it, but a peer polls for it (acquire) while this rank runs
        word.putLongRelease(ABILITIES_OFFSET, abilities);
    }

    /**
     * @return true if the rank whose word this is has said it reads its peers' processes (false until it has).
     */
    static boolean reads(final AtomicBuffer word)
    {
        return (word.getLong(ABILITIES_OFFSET) & DoorbellDescriptor.READS) != 0; // after seeing the rank attached (an acquire)
    }

    /**
     * @return where the rank's address word lies in its own process: read there, it holds this same value.
     */
    static long address(final AtomicBuffer word)
    {
        return word.getLong(ADDRESS_OFFSET); // after seeing the rank attached (an acquire)
    }

    /**
     * @return true if the rank reads its peers' processes and has checked that it can read every one that reads
     *         too; false if it does not, could not, or has not checked yet.
     */
    static boolean readsEveryone(final AtomicBuffer word)
    {
        final long checked = DoorbellDescriptor.READS | DoorbellDescriptor.CHECKED;
        // NOTE: acquire pairs with declareChecked's release; the word's value is all it carries
        return (word.getLongAcquire(ABILITIES_OFFSET) & (checked | DoorbellDescriptor.UNREADABLE)) == checked;
    }

    /**
     * @return true if the rank whose word this is has said it can sleep on and ring futexes (false until it has).
     */
    static boolean canFutex(final AtomicBuffer word)
    {
        return (word.getLong(ABILITIES_OFFSET) & DoorbellDescriptor.FUTEX) != 0; // after seeing the rank attached (an acquire)
    }

    /**
     * Takes the ring of a rank armed for a futex wait (ARMED_FUTEX to RUNG) without a publish: to end its
     * current or next wait from its own process.
     *
     * @return true if the caller must wake the futex.
     */
    static boolean takeFutexRing(final AtomicBuffer word)
    {
        return word.compareAndSetLong(0, ARMED_FUTEX, RUNG);
    }
}
