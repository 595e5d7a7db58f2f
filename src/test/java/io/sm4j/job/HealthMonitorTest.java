package io.sm4j.job;

import io.sm4j.it.ScratchDir;
import io.sm4j.layout.LayoutParams;
import io.sm4j.segment.JobAbortedException;
import io.sm4j.segment.Segment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * When the periodic check (peers' and the launcher's /proc files) runs: a pass that delivered leaves it to a
 * quiet one, unless it is a whole interval late, and the quiet pass after a sleep runs it without waiting
 * for its turn to read the clock. The rules are about time, so the tests let the clock pass an interval.
 */
@Timeout(60)
class HealthMonitorTest
{
    private static final long INTERVAL = HealthMonitor.INTERVAL_NANOS;
    private ScratchDir scratch;
    private Segment segment;
    private HealthMonitor health;

    @BeforeEach
    void setUp() throws IOException
    {
        scratch = ScratchDir.create("sm4j-health-");
        segment = Segment.create(LayoutParams.defaults(2), scratch.path, 7);
        health = new HealthMonitor(segment, 1, 0, () -> { }, new RankCounters(segment.views().counters(1), 1 << 20));
    }

    /**
     * Runs the first check, which is due at once.
     *
     * @return the clock it read: the next check is due an interval after this.
     */
    private long firstCheck()
    {
        health.afterSleep();
        health.check();
        assertEquals(1, health.ticks());
        return health.now();
    }

    @AfterEach
    void tearDown() throws IOException
    {
        segment.close();
        scratch.close();
    }

    @Test
    void aCheckDueAfterASleepShouldWaitForAQuietPassNotForADeliveringOne()
    {
        final long last = firstCheck();
        awaitClock(last + INTERVAL); // the next check is due
        health.afterSleep();
        for (int i = 0; i < 1000; i++)
        {
            health.checkBusy(); // reads the clock every 64 calls
        }
        if (System.nanoTime() - last < 2 * INTERVAL) // else the check was a whole interval late, and ran by right
        {
            assertEquals(1, health.ticks(), "a pass that delivered ran a check that was not a whole interval late");
        }
        health.check();
        assertTrue(health.ticks() >= 2, "the first quiet pass after the sleep did not run the check that was due");
    }

    @Test
    void aRankThatIsNeverQuietShouldStillCheckOnceTheCheckIsAWholeIntervalLate()
    {
        final long last = firstCheck();
        final long deadline = last + TimeUnit.SECONDS.toNanos(30);
        while (health.ticks() == 1 && System.nanoTime() < deadline)
        {
            health.checkBusy();
        }
        assertEquals(2, health.ticks(), "a rank whose every pass delivered never checked the job");
        assertTrue(System.nanoTime() - last >= 2 * INTERVAL, "a pass that delivered ran a check that was not a whole interval late");
    }

    @Test
    void theQuietPassAfterASleepShouldSeeAnAbortBeforeTheIntervalHasPassed()
    {
        firstCheck();
        segment.abort(0, "rank 0 gave up"); // its ring would have woken this rank
        health.afterSleep();
        final JobAbortedException aborted = assertThrows(JobAbortedException.class, health::check,
            "a rank woken by an abort's ring waited for its interval to see it");
        assertTrue(aborted.getMessage().contains("rank 0 gave up"), aborted.getMessage());
        assertEquals(1, health.ticks(), "the interval had not passed: only the abort was looked at");
    }

    private static void awaitClock(final long at)
    {
        for (long left = at - System.nanoTime(); left > 0; left = at - System.nanoTime())
        {
            LockSupport.parkNanos(left);
        }
    }
}
