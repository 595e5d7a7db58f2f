package io.sm4j.job;

import io.sm4j.it.ScratchDir;
import io.sm4j.layout.LayoutParams;
import io.sm4j.segment.JobAbortedException;
import io.sm4j.segment.MappingGuard;
import io.sm4j.segment.Segment;
import io.sm4j.segment.Sm4jException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link RankJob} over a real segment in /dev/shm: what it reads and writes there, and that every call keeps
 * the mapping guarded (entered once, left once, whether it returns or throws; refused once the guard is
 * closed). The guard here counts instead of gating a real endpoint, whose gate has tests of its own
 * (EndpointTest, PeerFailureTest's close race).
 */
@Timeout(60)
class RankJobTest
{
    private ScratchDir scratch;
    private Segment segment;
    private final CountingGuard guard = new CountingGuard();
    private int rings;

    @BeforeEach
    void createSegment() throws IOException
    {
        scratch = ScratchDir.create("sm4j-rank-job-");
        segment = Segment.create(LayoutParams.defaults(3), scratch.path, 5);
        segment.ranks().register(0);
    }

    @AfterEach
    void removeSegment() throws IOException
    {
        try
        {
            segment.close();
            assertTrue(scratch.isEmpty(), "files left behind in " + scratch.path);
        }
        finally
        {
            scratch.close();
        }
    }

    private RankJob job(final boolean supervised)
    {
        return new RankJob(segment, 0, supervised, guard, () -> rings++);
    }

    @Test
    void aPeerShouldBeAttachedFromItsRegistrationUntilItDetaches()
    {
        final RankJob job = job(false);
        assertFalse(job.isAttached(1), "never registered");
        segment.ranks().register(1);
        assertTrue(job.isAttached(1));
        segment.detach(1);
        assertFalse(job.isAttached(1), "detached");
        guard.assertBalanced(3);
    }

    @Test
    void anAbortShouldRecordTheFirstReasonAndRingEverySleeper()
    {
        final RankJob job = job(false);
        job.checkNotAborted();
        job.abort("rank 0 ran out of patience");
        assertEquals(1, rings);
        job.abort("a later reason");
        assertEquals(2, rings, "every abort rings, the first reason stays");
        assertAborted("job aborted by rank 0: rank 0 ran out of patience", job::checkNotAborted);
        guard.assertBalanced(4);
    }

    @Test
    void aPeerGoneShouldBeNamedUnlessTheJobWasAbortedWhichIsTheCause()
    {
        final RankJob job = job(false);
        final Sm4jException gone = job.peerGone(2);
        assertEquals("rank 2 has detached: rank 0 cannot send to it", gone.getMessage());
        segment.abort(2, "rank 2 threw: boom");
        assertAborted("job aborted by rank 2: rank 2 threw: boom", () -> job.peerGone(2));
        guard.assertBalanced(2);
    }

    @Test
    void underALauncherAnAbortAlreadyRecordedShouldEndTheWaitForOneAtOnce()
    {
        final RankJob job = job(true);
        segment.abort(1, "rank 1 threw: boom");
        // aborted before the wait: the first look throws, the 500 ms wait for a late abort never starts
        assertAborted("job aborted by rank 1: rank 1 threw: boom", job::checkNotAbortedAfterDetach);
        guard.assertBalanced(1);
    }

    @Test
    void underALauncherADetachWithoutAnAbortShouldWaitForOneOnceAndThenSeeALaterOne()
    {
        final RankJob job = job(true);
        job.checkNotAbortedAfterDetach(); // waits for a late abort (up to 500 ms); none comes
        final int looks = guard.entered;
        assertTrue(looks > 1, "looked for the abort while it waited: " + looks);
        job.checkNotAbortedAfterDetach();
        assertEquals(looks + 1, guard.entered, "a second detach does not wait again: one look");
        segment.abort(2, "rank 2 threw: boom");
        assertThrows(JobAbortedException.class, job::checkNotAbortedAfterDetach);
        guard.assertBalanced(looks + 2);
    }

    @Test
    void aClosedGuardShouldRefuseEveryCallWithoutTouchingTheSegment()
    {
        final RankJob job = job(false);
        guard.closed = true;
        assertThrows(IllegalStateException.class, () -> job.isAttached(1));
        assertThrows(IllegalStateException.class, job::checkNotAborted);
        assertThrows(IllegalStateException.class, () -> job.abort("too late"));
        assertEquals(0, rings);
        guard.closed = false;
        job.checkNotAborted(); // the refused abort recorded nothing
        guard.assertBalanced(1);
    }

    @Test
    void aFaultOfTheMappingShouldBeExplainedByTheGuard()
    {
        final RankJob job = new RankJob(segment, 0, false, guard, () ->
        {
            throw new InternalError("a fault occurred in an unsafe memory access");
        });
        final Sm4jException explained = assertThrows(Sm4jException.class, () -> job.abort("rings into a fault"));
        assertSame(guard.explained, explained);
        guard.assertBalanced(1);
    }

    private static void assertAborted(final String expected, final Executable call)
    {
        assertEquals(expected, assertThrows(JobAbortedException.class, call).getMessage());
    }

    /**
     * Counts entries and exits, refuses when closed, and explains a fault with an exception of its own.
     */
    private static final class CountingGuard implements MappingGuard
    {
        final Sm4jException explained = new Sm4jException("the guard's explanation");
        boolean closed;
        int entered;
        int exited;

        @Override
        public void enterMapping()
        {
            if (closed)
            {
                throw new IllegalStateException("endpoint of rank 0 is closed");
            }
            entered++;
        }

        @Override
        public void exitMapping()
        {
            exited++;
        }

        @Override
        public Sm4jException fault(final InternalError error)
        {
            return explained;
        }

        void assertBalanced(final int calls)
        {
            assertEquals(calls, entered, "calls that entered the mapping");
            assertEquals(entered, exited, "every call that entered left");
        }
    }
}
