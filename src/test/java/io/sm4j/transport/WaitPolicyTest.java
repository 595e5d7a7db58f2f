package io.sm4j.transport;

import io.sm4j.layout.DoorbellDescriptor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.function.LongPredicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * When a wait of ranks that may share cores gives up its processor for a sleep: a plain wait after 200 us
 * of yielding, a wait in lockstep (a collective's step) only after 5 ms; and how long a rank with a core of
 * its own spins: a millisecond, 20 us after a wait that slept; and how a blocking receive's looks at its source
 * are paced: spun briefly where waits spin, yielded for 50 us where the processor may be wanted. Over a real
 * segment's doorbell word and a real socket; nobody rings, so each wait runs its whole course.
 */
class WaitPolicyTest
{
    private static final long TIMEOUT_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final int ATTEMPTS = 20;

    private BellRig rig;
    private Doorbell bell;
    private PeerBells peers;

    @BeforeEach
    void open() throws IOException
    {
        rig = new BellRig("sm4j-wait-policy-", 0);
        bell = rig.bell;
        peers = rig.sleeperBells;
    }

    @AfterEach
    void close() throws IOException
    {
        rig.close();
    }

    @Test
    void aPlainWaitOfRanksThatShareCoresShouldSleepWithinMilliseconds()
    {
        final WaitPolicy policy = new WaitPolicy(TransportOptions.Idle.AUTO, bell, peers, true, null);
        waitUnpreempted(policy, TimeUnit.MILLISECONDS.toNanos(3), false);
        assertTrue(bell.sleeps() > 0, "a 3 ms wait yielded throughout instead of sleeping after 200 us");
    }

    @Test
    void aWaitInLockstepShouldYieldForMillisecondsBeforeItSleeps()
    {
        final WaitPolicy policy = new WaitPolicy(TransportOptions.Idle.AUTO, bell, peers, true, null);
        // 3 ms: past both other limits (200 us contended, 1 ms when the policy judges itself uncontended)
        waitUnpreempted(policy, TimeUnit.MILLISECONDS.toNanos(3), true);
        assertEquals(0, bell.sleeps(), "a 3 ms wait in lockstep slept");

        waitUnpreempted(policy, TimeUnit.MILLISECONDS.toNanos(8), true);
        assertTrue(bell.sleeps() > 0, "an 8 ms wait in lockstep never slept: a long wait would burn a core");
    }

    @Test
    void aWaitAfterOneThatSleptShouldSpinOnlyBriefly()
    {
        final WaitPolicy policy = new WaitPolicy(TransportOptions.Idle.AUTO, bell, peers, false, null); // a core per rank
        for (int attempt = 0; attempt < ATTEMPTS; attempt++)
        {
            // spins 1 ms, arms, naps 1 ms, sleeps: 6 ms leave room for the sub-millisecond preemptions
            // waitUnpreempted lets through (3 ms failed once: 1 block)
            waitUnpreempted(policy, TimeUnit.MILLISECONDS.toNanos(6), false);
            final long afterLong = bell.sleeps();
            assertTrue(afterLong >= 2, "a 6 ms wait did not nap and sleep: " + afterLong + " blocks");
            if (idleFor(policy, TimeUnit.MICROSECONDS.toNanos(300), false) >= TimeUnit.MICROSECONDS.toNanos(250))
            {
                continue; // preempted long enough to end the 300 us before the 20 us spin could: proves nothing
            }
            assertTrue(bell.sleeps() > afterLong, "the wait after one that slept spun 300 us without blocking");

            // that wait only napped: the next spins for its millisecond again
            final long before = bell.sleeps();
            if (idleFor(policy, TimeUnit.MICROSECONDS.toNanos(300), false) < TimeUnit.MILLISECONDS.toNanos(1))
            {
                assertEquals(before, bell.sleeps(), "a wait after one that did not sleep blocked within 300 us");
                return;
            }
        }
        throw new AssertionError("every attempt was preempted");
    }

    @Test
    void aRankGivenACoreShouldWaitAsWhereRanksShareCoresWhileTheNodeIsOversubscribed()
    {
        final boolean[] oversubscribed = { false };
        final WaitPolicy policy = new WaitPolicy(TransportOptions.Idle.AUTO, bell, peers, false, now -> oversubscribed[0]);
        assertFalse(firstPassYields(policy), "a wait of a rank given a core yielded on a quiet node");
        assertSpun(policy, System.nanoTime());

        oversubscribed[0] = true;
        assertFalse(firstPassYields(policy), "a short wait asked: only the end of a spin phase does");
        waitUnpreempted(policy, TimeUnit.MILLISECONDS.toNanos(2), false); // past the 1 ms spin phase, which asks
        assertTrue(firstPassYields(policy), "a wait spun on an oversubscribed node");
        assertYielded(policy, System.nanoTime());

        oversubscribed[0] = false;
        assertSpun(policy, System.nanoTime()); // the looks ask too: a ping-pong's waits may all end within them
        assertFalse(firstPassYields(policy), "a wait yielded once the node was quiet again");
    }

    @Test
    void onlyAutoWithACorePerRankShouldAskWhetherTheNodeIsOversubscribed()
    {
        final LongPredicate never = now ->
        {
            throw new AssertionError("asked");
        };
        // each in the state where AUTO would ask: waits that yield (where ranks may share cores), or a spin phase
        // that ends (past BLOCK's 20 us)
        for (final WaitPolicy policy : new WaitPolicy[] {
            new WaitPolicy(TransportOptions.Idle.AUTO, bell, peers, true, never),
            new WaitPolicy(TransportOptions.Idle.BLOCK, bell, peers, false, never),
            new WaitPolicy(TransportOptions.Idle.BLOCK, bell, peers, true, never),
            new WaitPolicy(TransportOptions.Idle.SPIN, bell, peers, true, never),
            new WaitPolicy(TransportOptions.Idle.YIELD, bell, peers, true, never) })
        {
            policy.startLooks(System.nanoTime());
            while (policy.pauseLook())
            {
                Thread.onSpinWait();
            }
            idleFor(policy, TimeUnit.MICROSECONDS.toNanos(100), false);
        }
    }

    @Test
    void aSpinningWaitShouldAskOnceAsItsSpinPhaseEnds()
    {
        final int[] asked = { 0 };
        final WaitPolicy policy = new WaitPolicy(TransportOptions.Idle.AUTO, bell, peers, false, now ->
        {
            asked[0]++;
            return false;
        });
        for (int wait = 0; wait < 3; wait++)
        {
            final int before = asked[0];
            // past the spin phase (1 ms, or 20 us after a sleep): a wait preempted for longer than its 2 ms may end
            // before it read its clock, and ask in the next
            long length = TimeUnit.MILLISECONDS.toNanos(2);
            while (asked[0] == before && length < TimeUnit.SECONDS.toNanos(1))
            {
                idleFor(policy, length, false);
                length *= 2;
            }
            assertEquals(1, asked[0] - before, "asks in wait " + wait);
        }
    }

    /**
     * @return whether a wait's first empty pass is followed by a yield (the wait then ends).
     */
    private static boolean firstPassYields(final WaitPolicy policy)
    {
        policy.idle(TIMEOUT_NANOS, false);
        final boolean yields = policy.yields();
        policy.reset();
        return yields;
    }

    @Test
    void looksWhereRanksShareCoresShouldYieldForTensOfMicroseconds()
    {
        final WaitPolicy policy = new WaitPolicy(TransportOptions.Idle.AUTO, bell, peers, true, null);
        for (int attempt = 0; attempt < ATTEMPTS; attempt++)
        {
            assertYielded(policy, System.nanoTime());
        }
    }

    @Test
    void looksWhereEveryRankHasACoreShouldSpinACountedFew()
    {
        assertSpun(new WaitPolicy(TransportOptions.Idle.AUTO, bell, peers, false, null), System.nanoTime());
        assertSpun(new WaitPolicy(TransportOptions.Idle.BLOCK, bell, peers, true, null), System.nanoTime());
    }

    @Test
    void looksJustAfterThisRankRangAPeerShouldYield()
    {
        final WaitPolicy policy = new WaitPolicy(TransportOptions.Idle.AUTO, bell, peers, false, null);
        assertSpun(policy, System.nanoTime()); // never rang
        peers.wake(rig.sleeper, DoorbellDescriptor.ARMED); // a real ring (of the rig's one open doorbell, this rank's)
        final long rang = peers.lastRing();
        assertTrue(rang != 0, "the ring was not noted");
        assertYielded(policy, rang + TimeUnit.MICROSECONDS.toNanos(100)); // the woken peer may be queued on this core
        assertSpun(policy, rang + TimeUnit.MILLISECONDS.toNanos(2));
        final WaitPolicy block = new WaitPolicy(TransportOptions.Idle.BLOCK, bell, peers, false, null);
        assertYielded(block, rang + TimeUnit.MICROSECONDS.toNanos(100));
        assertSpun(block, rang + TimeUnit.MILLISECONDS.toNanos(2));
    }

    @Test
    void looksInSpinModeShouldSpinEvenJustAfterARing()
    {
        final WaitPolicy policy = new WaitPolicy(TransportOptions.Idle.SPIN, bell, peers, true, null);
        peers.wake(rig.sleeper, DoorbellDescriptor.ARMED);
        assertTrue(peers.lastRing() != 0, "the ring was not noted");
        assertSpun(policy, peers.lastRing() + TimeUnit.MICROSECONDS.toNanos(100));
    }

    @Test
    void looksInYieldAndSpinModesShouldDoAsTheModeSays()
    {
        assertYielded(new WaitPolicy(TransportOptions.Idle.YIELD, bell, peers, false, null), System.nanoTime());
        assertSpun(new WaitPolicy(TransportOptions.Idle.SPIN, bell, peers, true, null), System.nanoTime());
    }

    /**
     * Spinning looks are counted: they end after {@link WaitPolicy#LOOK_SPINS}, however long that takes.
     */
    private static void assertSpun(final WaitPolicy policy, final long now)
    {
        policy.startLooks(now);
        int more = 0;
        while (policy.pauseLook())
        {
            more++;
        }
        assertEquals(WaitPolicy.LOOK_SPINS - 1, more, "looks after the first");
    }

    /**
     * Yielding looks are timed: however fast the yields, none starts after {@link WaitPolicy#LOOK_YIELD_NANOS},
     * and they end.
     */
    private static void assertYielded(final WaitPolicy policy, final long now)
    {
        final long start = System.nanoTime();
        policy.startLooks(now);
        int more = 0;
        while (policy.pauseLook())
        {
            more++;
        }
        final long took = System.nanoTime() - start;
        assertTrue(took >= WaitPolicy.LOOK_YIELD_NANOS, "yielding looks ended after " + took + " ns (" + more + " more)");
        assertTrue(took < TimeUnit.SECONDS.toNanos(1), "yielding looks went on for " + took + " ns");
    }

    /**
     * Waits {@code nanos}, again if the thread lost its processor for over a millisecond at a time (such a
     * wait proves nothing: its limit may have passed in one idle call).
     */
    private void waitUnpreempted(final WaitPolicy policy, final long nanos, final boolean lockstep)
    {
        for (int attempt = 0; attempt < ATTEMPTS; attempt++)
        {
            if (idleFor(policy, nanos, lockstep) < TimeUnit.MILLISECONDS.toNanos(1))
            {
                return;
            }
        }
        throw new AssertionError("every attempt was preempted for over a millisecond");
    }

    /**
     * Idles as a waiting thread does, until {@code nanos} have passed, then ends the wait.
     *
     * @return the longest a pass and an idle call that did not block took (a preemption shows here).
     */
    private long idleFor(final WaitPolicy policy, final long nanos, final boolean lockstep)
    {
        final long start = System.nanoTime();
        long longest = 0;
        long now = start;
        while (now - start < nanos)
        {
            final long blocks = bell.sleeps();
            policy.idle(TIMEOUT_NANOS, lockstep);
            final long after = System.nanoTime();
            if (bell.sleeps() == blocks)
            {
                longest = Math.max(longest, after - now);
            }
            now = after;
        }
        policy.reset();
        return longest;
    }
}
