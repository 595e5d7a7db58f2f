package io.sm4j.transport;

import io.sm4j.layout.DoorbellDescriptor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Rank 1's socket doorbell rung by rank 0, over a real segment's words and a real Unix socket: a ring ends a
 * sleep, and is read before the next one (a sleeper leaves its rings unread on waking, off the path to its
 * message), so the next sleep lasts until it is rung again or its timeout.
 */
@Timeout(120)
class DoorbellTest
{
    private static final long LONG_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final long SHORT_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private BellRig rig;

    @BeforeEach
    void open() throws IOException
    {
        rig = new BellRig("sm4j-doorbell-", 1);
    }

    @AfterEach
    void close() throws IOException
    {
        rig.close();
    }

    @Test
    void aRingShouldEndOneSleepAndNotTheNext()
    {
        for (int round = 1; round <= 3; round++)
        {
            armAndRing();
            rig.bell.sleep(LONG_NANOS); // the ring is in the socket already: returns at once
            assertEquals(2L * round - 1, rig.bell.sleeps(), "sleeps after round " + round);
            assertEquals(round - 1, rig.bell.timedOut(), "a rung sleep ran to its timeout in round " + round);

            sleepUnrung(round);
        }
    }

    @Test
    void ringsThatCameTogetherShouldEndOneSleep()
    {
        for (int ring = 0; ring < 5; ring++)
        {
            armAndRing();
        }
        rig.bell.sleep(LONG_NANOS);
        assertEquals(0, rig.bell.timedOut());

        sleepUnrung(1);
    }

    @Test
    void aRingTakenWhileTheLastOneIsUnreadShouldEndTheSleep()
    {
        armAndRing();
        rig.bell.sleep(LONG_NANOS); // ended by the ring, which it leaves unread until it next blocks
        armAndRing(); // the next arm's ring: the sleep below reads both bytes before it blocks
        final long start = System.nanoTime();
        rig.bell.sleep(LONG_NANOS);
        assertEquals(0, rig.bell.timedOut(), "a rung sleep ran to its timeout: the ring was read, and lost, before it blocked");
        assertTrue(System.nanoTime() - start < LONG_NANOS / 2, "a rung sleep waited for a ring already read");
    }

    /**
     * A thread whose interrupt status is set rings and sleeps as any other (a socket's accept, read or write
     * would close it, and a select would return at once), and keeps the status.
     */
    @Test
    void anInterruptedThreadShouldRingAndSleepAsAnyOther()
    {
        Thread.currentThread().interrupt();
        try
        {
            for (int round = 1; round <= 2; round++)
            {
                armAndRing();
                rig.bell.sleep(LONG_NANOS);
                assertEquals(round - 1, rig.bell.timedOut(), "a rung sleep ran to its timeout in round " + round);
                sleepUnrung(round);
                assertTrue(Thread.currentThread().isInterrupted(), "the interrupt status was lost");
            }
        }
        finally
        {
            Thread.interrupted();
        }
    }

    /**
     * Sleeps with nobody ringing: rings an earlier sleep took must not end this one, which lasts its timeout.
     */
    private void sleepUnrung(final long timedOutBefore)
    {
        rig.bell.tryArm();
        final long start = System.nanoTime();
        rig.bell.sleep(SHORT_NANOS);
        final long slept = System.nanoTime() - start;
        assertEquals(timedOutBefore, rig.bell.timedOut(), "a sleep nobody rang was ended by a ring an earlier one had taken");
        assertTrue(slept >= SHORT_NANOS * 3 / 4, "a sleep nobody rang returned after " + slept / 1000 + " us, before its "
            + SHORT_NANOS / 1000 + " us timeout: a ring an earlier sleep had taken ended it");
    }

    /**
     * What a publisher does for an armed peer: takes the ring from the word, then writes to its socket.
     */
    private void armAndRing()
    {
        rig.bell.tryArm();
        final long armed = BellWord.takeRing(rig.segment.views().bell(rig.sleeper));
        assertEquals(DoorbellDescriptor.ARMED, armed, "the sleeper's word after it armed");
        rig.ringer.wake(rig.sleeper, armed);
    }
}
