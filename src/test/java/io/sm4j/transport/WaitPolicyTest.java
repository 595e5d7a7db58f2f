package io.sm4j.transport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
    /** {@link WaitPolicy}'s yielding looks last this long. */
    private static final long LOOK_YIELD_NANOS = TimeUnit.MICROSECONDS.toNanos(50);

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
        final WaitPolicy policy = new WaitPolicy(TransportOptions.Idle.AUTO, bell, peers, true);
        waitUnpreempted(policy, TimeUnit.MILLISECONDS.toNanos(3), false);
        assertTrue(bell.sleeps() > 0, "a 3 ms wait yielded throughout instead of sleeping after 200 us");
    }

    @Test
    void aWaitInLockstepShouldYieldForMillisecondsBeforeItSleeps()
    {
        final WaitPolicy policy = new WaitPolicy(TransportOptions.Idle.AUTO, bell, peers, true);
        // 3 ms: past both other limits (200 us contended, 1 ms when the policy judges itself uncontended)
        waitUnpreempted(policy, TimeUnit.MILLISECONDS.toNanos(3), true);
        assertEquals(0, bell.sleeps(), "a 3 ms wait in lockstep slept");

        waitUnpreempted(policy, TimeUnit.MILLISECONDS.toNanos(8), true);
        assertTrue(bell.sleeps() > 0, "an 8 ms wait in lockstep never slept: a long wait would burn a core");
    }

    @Test
    void aWaitAfterOneThatSleptShouldSpinOnlyBriefly()
    {
        final WaitPolicy policy = new WaitPolicy(TransportOptions.Idle.AUTO, bell, peers, false); // a core per rank
        for (int attempt = 0; attempt < ATTEMPTS; attempt++)
        {
            waitUnpreempted(policy, TimeUnit.MILLISECONDS.toNanos(3), false); // spins 1 ms, arms, naps, sleeps
            final long afterLong = bell.sleeps();
            assertTrue(afterLong >= 2, "a 3 ms wait did not nap and sleep: " + afterLong + " blocks");
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
    void looksWhereRanksShareCoresShouldYieldForTensOfMicroseconds()
    {
        final WaitPolicy policy = new WaitPolicy(TransportOptions.Idle.AUTO, bell, peers, true);
        for (int attempt = 0; attempt < ATTEMPTS; attempt++)
        {
            final long took = looks(policy, System.nanoTime());
            // timed, not counted: however fast the yields, the looks last their 50 us, and then end
            assertTrue(took >= LOOK_YIELD_NANOS, "yielding looks ended after " + took + " ns");
            assertTrue(took < TimeUnit.SECONDS.toNanos(1), "yielding looks went on for " + took + " ns");
        }
    }

    @Test
    void looksWhereEveryRankHasACoreShouldSpinBriefly()
    {
        final WaitPolicy policy = new WaitPolicy(TransportOptions.Idle.AUTO, bell, peers, false);
        assertTrue(unpreemptedLooks(policy, System.nanoTime()) < LOOK_YIELD_NANOS,
            "spinning looks took as long as yielding ones in every attempt");
    }

    @Test
    void looksJustAfterThisRankRangAPeerShouldYield()
    {
        final WaitPolicy policy = new WaitPolicy(TransportOptions.Idle.AUTO, bell, peers, false);
        // a clock that reads within a millisecond of the rank's last ring (none yet: at 0)
        assertTrue(looks(policy, TimeUnit.MICROSECONDS.toNanos(100)) >= LOOK_YIELD_NANOS,
            "a rank that had just woken a peer spun its looks: the woken peer may be queued behind it");
        assertTrue(unpreemptedLooks(policy, System.nanoTime()) < LOOK_YIELD_NANOS, "long after the ring, the looks spin");
    }

    @Test
    void looksInYieldAndSpinModesShouldDoAsTheModeSays()
    {
        assertTrue(looks(new WaitPolicy(TransportOptions.Idle.YIELD, bell, peers, false), System.nanoTime()) >= LOOK_YIELD_NANOS,
            "yield mode spun its looks");
        assertTrue(unpreemptedLooks(new WaitPolicy(TransportOptions.Idle.SPIN, bell, peers, true), System.nanoTime()) < LOOK_YIELD_NANOS,
            "spin mode yielded its looks where ranks share cores");
    }

    /**
     * @return the shortest of {@link #ATTEMPTS} runs of looks (a preempted one lasts a tick).
     */
    private long unpreemptedLooks(final WaitPolicy policy, final long now)
    {
        long shortest = Long.MAX_VALUE;
        for (int attempt = 0; attempt < ATTEMPTS; attempt++)
        {
            shortest = Math.min(shortest, looks(policy, now));
        }
        return shortest;
    }

    /**
     * Looks as a blocking receive does, finding nothing, until the policy ends the looks.
     *
     * @return how long they took.
     */
    private static long looks(final WaitPolicy policy, final long now)
    {
        final long start = System.nanoTime();
        policy.startLooks(now);
        while (policy.pauseLook())
        {
            Thread.onSpinWait(); // where a look would be
        }
        return System.nanoTime() - start;
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
