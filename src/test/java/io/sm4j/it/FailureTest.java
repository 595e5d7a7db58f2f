package io.sm4j.it;

import io.sm4j.cli.Sm4jCli;
import io.sm4j.launch.JobLauncher;
import io.sm4j.layout.LayoutParams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

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
        // the launcher (exit code) or a survivor's health check (pid gone) may see rank 2 end first: both name it
        for (int survivor = 0; survivor < 2; survivor++)
        {
            assertTrue(job.out().matches("(?s).*\\[" + survivor + "] rank " + survivor + " saw: job aborted by " +
                "(the launcher: rank 2 exited with code 3|rank [01]: rank 2 \\(pid \\d+\\) died)\n.*"), job.out());
        }
        assertFalse(job.err().contains("killing rank"), "ranks ended by themselves: " + job.err());
        assertFalse(job.leftFiles());
    }

    @Test
    @Timeout(120)
    void aJobPastItsTimeLimitShouldBeAbortedNamingTheWaitingRanks() throws IOException
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-timeout-"))
        {
            final StringWriter out = new StringWriter();
            final StringWriter err = new StringWriter();
            final int code = Sm4jCli.execute(new String[]{ "run", "-n", "2", "--dir", dir.path.toString(), "--timeout", "6",
                "--", FailureApp.class.getName(), "wait" }, new PrintWriter(out, true), new PrintWriter(err, true));
            assertEquals(JobLauncher.TIMED_OUT, code, out + "" + err);
            assertTrue(err.toString().matches("(?s).*sm4j run: time limit of 6 s passed with rank 0 \\(last waited in sm4j \\d+ ms " +
                "ago\\), rank 1 \\(last waited in sm4j \\d+ ms ago\\) still running; aborting the job.*"), err.toString());
            assertTrue(out.toString().contains("[1] rank 1 saw: job aborted by the launcher: time limit of 6 s passed"), out.toString());
            assertTrue(dir.isEmpty(), "segment left behind");
        }
    }

    /**
     * The launcher is killed (SIGKILL: no shutdown hook runs); its ranks must notice, abort, detach and exit,
     * and the last one out removes the file.
     */
    @Test
    @Timeout(120)
    void ranksShouldEndByThemselvesWhenTheLauncherIsKilled() throws Exception
    {
        final ScratchDir dir = ScratchDir.create("sm4j-orphans-");
        final Process launcher = new ProcessBuilder(JobLauncher.javaCommand(System.getProperty("java.class.path"), List.of(),
            List.of(Sm4jCli.class.getName(), "run", "-n", "2", "--dir", dir.path.toString(), "--",
                FailureApp.class.getName(), "wait"))).redirectErrorStream(true).start();
        final List<ProcessHandle> ranks = new ArrayList<>();
        try
        {
            // read on another thread so that a launcher that never prints cannot block past the deadline
            ranks.addAll(CompletableFuture.supplyAsync(() -> WaitingRanks.read(launcher, 2)).get(60, TimeUnit.SECONDS));
            assertEquals(2, ranks.size(), "both ranks attached");
            launcher.destroyForcibly().waitFor();
            for (final ProcessHandle rank : ranks)
            {
                rank.onExit().get(30, TimeUnit.SECONDS);
            }
            assertTrue(dir.isEmpty(), "segment left behind");
        }
        finally
        {
            launcher.destroyForcibly();
            ranks.forEach(ProcessHandle::destroyForcibly);
            dir.close();
        }
    }


    @Test
    @Timeout(120)
    void survivorsShouldSayAbortedInOneLineAndOnlyTheFailingRankShouldPrintItsTrace() throws IOException
    {
        final JobRunner job = JobRunner.run(LayoutParams.defaults(4), Map.of(), FailureApp.class.getName(), "throw");
        assertEquals(1, job.exitCode(), job.out() + job.err());
        assertTrue(job.err().contains("[3] Exception in thread \"main\" java.lang.IllegalStateException: rank 3 failed on purpose" +
            FailureApp.LONG_TAIL), job.err());
        assertTrue(job.err().contains("[3] \tat io.sm4j.it.FailureApp"), job.err());
        final String cause = "rank 3 threw java.lang.IllegalStateException: rank 3 failed on purpose" + FailureApp.LONG_TAIL;
        assertTrue(job.err().matches("(?s).*sm4j run: rank \\d exited with code \\d+; the job was aborted by rank 3: " +
            java.util.regex.Pattern.quote(cause) + "\n.*"), job.err());
        for (int survivor = 0; survivor < 3; survivor++)
        {
            final String prefix = "[" + survivor + "] ";
            final List<String> lines = job.err().lines().filter(line -> line.startsWith(prefix)).toList();
            // rank 3's exception handler records its failure before its JVM exits: no rank can see it die first;
            // a survivor still waiting for the others to attach is told so by the attach, which it prints
            if (lines.isEmpty())
            {
                assertTrue(job.out().contains(prefix + "rank " + survivor + " saw: job aborted by rank 3: " + cause + "\n"),
                    job.out() + job.err());
            }
            else
            {
                assertEquals(List.of(prefix + "aborted: " + cause), lines, job.err());
            }
        }
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
