package io.sm4j.it;

import io.sm4j.layout.LayoutParams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A failing rank aborts the job: the others get a clear exception within a bounded time, the launcher
 * returns the first non-zero exit code, and the segment is removed.
 */
class FailureTest
{
    @Test
    @Timeout(120)
    void aRankExitingNonZeroShouldAbortTheOthersWithTheReason() throws IOException
    {
        final JobRunner job = JobRunner.run(LayoutParams.defaults(3), Map.of(), FailureApp.class.getName(), "exit");
        assertEquals(3, job.exitCode(), job.out() + job.err());
        assertTrue(job.out().contains("[0] rank 0 saw: job aborted by the launcher: rank 2 exited with code 3"), job.out());
        assertTrue(job.out().contains("[1] rank 1 saw: job aborted by the launcher: rank 2 exited with code 3"), job.out());
        assertFalse(job.err().contains("killing rank"), "ranks ended by themselves: " + job.err());
        assertFalse(job.leftFiles());
    }

    @Test
    @Timeout(120)
    void aRankVanishingWithoutDetachingShouldBeDetectedAsDead() throws IOException
    {
        final JobRunner job = JobRunner.run(LayoutParams.defaults(2), Map.of(), FailureApp.class.getName(), "halt");
        assertEquals(4, job.exitCode(), job.out() + job.err());
        assertTrue(job.out().matches("(?s).*\\[0] rank 0 saw: job aborted by rank 0: rank 1 \\(pid \\d+\\) died.*"), job.out());
        assertFalse(job.leftFiles());
    }
}
