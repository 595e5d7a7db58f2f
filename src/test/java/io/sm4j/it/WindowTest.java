package io.sm4j.it;

import io.sm4j.cli.Sm4jCli;
import io.sm4j.layout.LayoutParams;
import io.sm4j.segment.SegmentFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Shared buffers across real JVMs over a real segment: single-copy messages, the mapping paid once, and no
 * buffer file left behind.
 */
class WindowTest
{
    @Test
    @Timeout(120)
    void tenThousandSendsFromOneSharedBufferShouldMapItOncePerReceiver() throws IOException
    {
        final JobRunner job = JobRunner.run(LayoutParams.defaults(3), Map.of(), WindowApp.class.getName(), "10000", "65536");
        assertEquals(0, job.exitCode(), job.out() + job.err());
        for (int rank = 1; rank < 3; rank++)
        {
            assertTrue(job.out().contains("[" + rank + "] rank " + rank + ": 10000 messages ok, " +
                "WindowStats[hits=9999, misses=1, invalidations=0, mapped=1, helped=0]"), job.out() + job.err());
        }
        assertFalse(job.leftFiles(), "the buffer's file went with its free, the segment with the job");
    }

    @Test
    @Timeout(120)
    void randomLockedPutsGetsAndAccumulatesOfFourJvmsShouldAddUpExactly() throws IOException
    {
        final JobRunner job = JobRunner.run(LayoutParams.defaults(4), Map.of(), WindowRmaApp.class.getName(), "locks", "5000", "42");
        assertEquals(0, job.exitCode(), job.out() + job.err());
        for (int rank = 0; rank < 4; rank++)
        {
            assertTrue(job.out().contains("[" + rank + "] rank " + rank + ": locks ok"), job.out() + job.err());
        }
        assertFalse(job.leftFiles(), "the window's parts went with it");
    }

    @Test
    @Timeout(120)
    void largePutsAndGetsBetweenTwoJvmsShouldArriveWholeWhoeverCopiesWhichChunk() throws IOException
    {
        final JobRunner job = JobRunner.run(LayoutParams.defaults(2), Map.of(), WindowRmaApp.class.getName(), "split", "40");
        assertEquals(0, job.exitCode(), job.out() + job.err());
        for (int rank = 0; rank < 2; rank++)
        {
            assertTrue(job.out().contains("[" + rank + "] rank " + rank + ": split ok"), job.out() + job.err());
        }
        System.out.println(job.out()); // the chunks each rank copied for the other (WindowStats' helped)
        assertFalse(job.leftFiles(), "the window's parts and the buffers went with them");
    }

    @Test
    @Timeout(120)
    void aRankWaitingForALockWhoseHolderDiedShouldFailWithTheJobsAbort() throws IOException
    {
        final JobRunner job = JobRunner.run(LayoutParams.defaults(3), Map.of(), WindowRmaApp.class.getName(), "dead-holder");
        assertTrue(job.out().matches("(?s).*\\[2] rank 2: the lock wait failed after \\d+ ms: .*rank 1.*"), job.out() + job.err());
        assertFalse(job.leftFiles(), "no part's file outlives the job");
    }

    @Test
    @Timeout(60)
    void cleanShouldRemoveASharedBufferFileWhoseSegmentIsGone() throws IOException
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-clean-"))
        {
            // what a rank that died after its job's segment was removed leaves
            final Path segment = SegmentFiles.path(dir.path, SegmentFiles.newJobId());
            final Path orphan = SegmentFiles.windowPath(segment, 1, 7);
            Files.write(orphan, new byte[4096]);
            final Path other = dir.path.resolve("not-sm4j.win-1-7");
            Files.write(other, new byte[1]);
            final StringWriter out = new StringWriter();
            final StringWriter err = new StringWriter();
            assertEquals(0, Sm4jCli.execute(new String[]{ "clean", "--dir", dir.path.toString() },
                new PrintWriter(out, true), new PrintWriter(err, true)), err.toString());
            assertTrue(out.toString().contains("WINDOW"), out.toString());
            assertTrue(out.toString().contains("a rank's shared buffer; its segment is gone"), out.toString());
            assertFalse(Files.exists(orphan), "removed");
            assertTrue(Files.exists(other), "another program's file stays");
            Files.delete(other);
        }
    }
}
