package io.sm4j.it;

import io.sm4j.cli.Sm4jCli;
import io.sm4j.launch.JobLauncher;
import io.sm4j.layout.LayoutParams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a rank sees when a peer leaves, fails, or breaks the segment: a clear exception that names the cause,
 * never a hang, an {@link Error}, or silence. Each case was a defect (issue 11): the job hung until its time
 * limit, or named the wrong rank, or died with {@code java.lang.InternalError}, or lost its output.
 */
class PeerFailureTest
{
    private static JobRunner run(final int ranks, final List<String> jvmArgs, final String... args) throws IOException
    {
        final String[] command = new String[args.length + 1];
        command[0] = PeerFailureApp.class.getName();
        System.arraycopy(args, 0, command, 1, args.length);
        return JobRunner.run(LayoutParams.defaults(ranks), Map.of(), jvmArgs, command);
    }

    private static JobRunner run(final int ranks, final String... args) throws IOException
    {
        return run(ranks, List.of("-Xmx768m", "-XX:+UseSerialGC"), args);
    }

    /** Defect 2: rank 2's barrier waited for rank 1, which had closed, until the job's time limit. */
    @Test
    @Timeout(120)
    void aBarrierShouldFailOnEveryRankWhenARankHasClosedInsteadOfEnteringIt() throws IOException
    {
        final JobRunner job = run(3, "barrier-after-close");
        assertEquals(4, job.exitCode(), job.out() + job.err());
        assertTrue(job.out().contains("[0] rank 0 saw: "), job.out() + job.err());
        // rank 2 finds rank 1 gone, unless rank 0, which found it first, has exited and the launcher aborted the job
        assertTrue(job.out().matches("(?s).*\\[2] rank 2 saw: (the barrier \\(step 1, waiting for rank 1\\) cannot complete: " +
            "the peer has detached|job aborted by the launcher: rank 0 exited with code 4)\n.*"), job.out() + job.err());
        assertFalse(job.leftFiles());
    }

    /**
     * Defect 5: the streaming send was taken off its queue when its receiver detached; the error came out of
     * the next call, and the send's await never returned.
     */
    @Test
    @Timeout(120)
    void aLargeSendWhoseReceiverClosesMidStreamShouldFailEveryTimeItIsAwaited() throws IOException
    {
        final JobRunner job = run(2, "stream-detach");
        assertEquals(4, job.exitCode(), job.out() + job.err());
        assertTrue(job.out().contains("[1] rank 1 closes mid-stream"), job.out());
        assertTrue(job.out().matches("(?s).*\\[0] rank 0 test saw: (rank 1 has detached: rank 0 cannot send to it|" +
            "the send of 67108864 bytes to rank 1 cannot complete: the peer has detached)\n.*"), job.out() + job.err());
        assertTrue(job.out().matches("(?s).*\\[0] rank 0 saw: (rank 1 has detached: rank 0 cannot send to it|" +
            "the send of 67108864 bytes to rank 1 cannot complete: the peer has detached)\n.*"), job.out() + job.err());
        assertFalse(job.leftFiles());
    }

    /**
     * Defect 4: a rank out of memory closed its communicator on the way out; the ranks waiting for it reported
     * the detachment, and the launcher whichever rank exited first.
     */
    @Test
    @Timeout(120)
    void aRankRunningOutOfMemoryShouldBeNamedAsTheCauseByEveryRankAndTheLauncher() throws IOException
    {
        final JobRunner job = run(3, List.of("-Xmx64m", "-XX:+UseSerialGC"), "throw", "1");
        assertEquals(1, job.exitCode(), job.out() + job.err());
        final String cause = "rank 2 threw java.lang.OutOfMemoryError: Java heap space";
        for (int survivor = 0; survivor < 2; survivor++)
        {
            assertTrue(job.err().contains("[" + survivor + "] aborted: " + cause + "\n"), job.err());
        }
        assertTrue(job.err().contains("[2] Exception in thread \"main\" java.lang.OutOfMemoryError: Java heap space"), job.err());
        assertTrue(job.err().matches("(?s).*sm4j run: rank \\d exited with code 1; the job was aborted by rank 2: " +
            Pattern.quote(cause) + "\n.*"), job.err());
        assertFalse(job.leftFiles());
    }

    /** Defect 3: every rank threw java.lang.InternalError and the launcher died with its stack trace. */
    @Test
    @Timeout(120)
    void aSegmentTruncatedUnderARunningJobShouldBeNamedWithItsLength() throws IOException
    {
        final JobRunner job = run(2, "truncate");
        assertEquals(4, job.exitCode(), job.out() + job.err());
        final String truncated = "segment file /dev/shm/\\S+ is 0 bytes, shorter than the \\d+ bytes of its layout: " +
            "it was truncated while the job ran";
        for (int rank = 0; rank < 2; rank++)
        {
            assertTrue(job.out().matches("(?s).*\\[" + rank + "] rank " + rank + " saw: " + truncated + "\n.*"), job.out() + job.err());
        }
        assertFalse((job.out() + job.err()).contains("InternalError"), job.out() + job.err());
        assertTrue(job.err().matches("(?s).*sm4j run: cannot (mark the job aborted|read the job's state): " + truncated + "\n.*"),
            job.err());
        assertFalse(job.leftFiles());
    }

    /**
     * Defect 9: a 64 MiB line without a newline (200 MiB in the report) ended the launcher's output thread
     * with an OutOfMemoryError: the rest of the output was lost and the job exited 0. The launcher runs with a
     * 64 MiB heap here, so the line cannot be held whole.
     */
    @Test
    @Timeout(180)
    void aVeryLongLineShouldReachTheLauncherOutputInPiecesFollowedByTheRest() throws Exception
    {
        final int length = 64 << 20;
        try (ScratchDir dir = ScratchDir.create("sm4j-long-line-"))
        {
            final Process launcher = new ProcessBuilder(JobLauncher.javaCommand(System.getProperty("java.class.path"),
                List.of("-Xmx64m", "-XX:+UseSerialGC"), List.of(Sm4jCli.class.getName(), "run", "-n", "1", "--dir",
                    dir.path.toString(), "--", PeerFailureApp.class.getName(), "long-line", Integer.toString(length))))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            long xs = 0;
            int pieces = 0;
            boolean after = false;
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(launcher.getInputStream(), StandardCharsets.UTF_8)))
            {
                for (String line = lines.readLine(); line != null; line = lines.readLine())
                {
                    final String head = line.substring(0, Math.min(80, line.length()));
                    assertTrue(line.startsWith("[0] "), () -> "unprefixed output: " + head);
                    if (line.equals("[0] after"))
                    {
                        after = true;
                    }
                    else if (line.length() > 4)
                    {
                        xs += line.length() - 4;
                        pieces++;
                    }
                }
            }
            assertEquals(0, launcher.waitFor());
            assertEquals(length, xs, "characters of the long line passed on");
            assertTrue(pieces > 1, "the line was passed on in pieces: " + pieces);
            assertTrue(after, "the output after the long line was passed on");
        }
    }

    /**
     * Defect 8: close() of a MULTIPLE-mode endpoint unmapped the segment while other threads were inside its
     * calls (SIGSEGV). Run in a JVM of its own: a crash is an exit code here.
     */
    @Test
    @Timeout(180)
    void closingAMultipleModeEndpointWhileOtherThreadsUseItShouldFailTheirCallsNotCrash() throws Exception
    {
        assertRoundsOk(30, CloseRaceApp.class, "30");
    }

    /**
     * Issue 21, item 1: a SINGLE-mode endpoint closed by another thread (a shutdown hook, a watchdog) while
     * its thread polls: before, the close unmapped under the running poll (SIGSEGV in compiled
     * Receiver.poll in some runs).
     */
    @Test
    @Timeout(180)
    void closingASingleModeEndpointFromAnotherThreadShouldFailTheCallsNotCrash() throws Exception
    {
        assertRoundsOk(100, CloseRaceApp.class, "100", "single");
    }

    /**
     * Issue 21, item 1, as users meet it: a communicator closed by another thread while its thread waits in
     * recv; the recv ends with one line saying who closed it.
     */
    @Test
    @Timeout(180)
    void closingACommunicatorWhileItsThreadWaitsShouldEndTheWaitWithOneLine() throws Exception
    {
        assertRoundsOk(100, CommunicatorRaceApp.class, "close", "100");
    }

    /**
     * Issue 21, item 5: a second thread calling a communicator while its thread waits is told so in one line
     * (before: NullPointerExceptions inside the library and a peer blamed for corrupt data).
     */
    @Test
    @Timeout(180)
    void aSecondThreadCallingACommunicatorShouldBeToldInOneLine() throws Exception
    {
        assertRoundsOk(100, CommunicatorRaceApp.class, "misuse", "100");
    }

    /**
     * Runs {@code app} in a JVM of its own (a crash is an exit code here, not a lost test JVM), which must say
     * it completed {@code rounds} rounds.
     */
    private static void assertRoundsOk(final int rounds, final Class<?> app, final String... args) throws Exception
    {
        final List<String> command = new ArrayList<>(List.of(app.getName()));
        command.addAll(List.of(args));
        final Process race = new ProcessBuilder(JobLauncher.javaCommand(System.getProperty("java.class.path"),
            List.of("-Xmx256m"), command)).redirectErrorStream(true).start();
        final String output = new String(race.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, race.waitFor(), output);
        assertTrue(output.contains(rounds + " rounds ok"), output);
    }
}
