package io.sm4j.it;

import io.sm4j.cli.Sm4jCli;
import io.sm4j.launch.JobLauncher;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * Kills a 4-rank job (launcher started with setsid, as a shell job or a batch system would) in every way a
 * job dies, and checks that no segment file survives the next {@code sm4j run} or {@code sm4j clean}, and
 * that neither ever removes a live job's file.
 */
class KillMatrixTest
{

    enum Kill
    {
        /** SIGKILL one rank: the launcher aborts the job and removes the file. */
        RANK,
        /** SIGKILL the launcher: the ranks see it die, abort, detach, and the last one out removes the file. */
        LAUNCHER,
        /** SIGTERM the launcher: it forwards SIGTERM to the ranks (their shutdown hooks run) and removes the file. */
        TERM,
        /** SIGINT the launcher (Ctrl-C), as TERM. */
        INT,
        /** SIGTERM the launcher while rank 2's shutdown hook never ends: the launcher kills it after the grace period. */
        TERM_STUCK,
        /**
         * SIGSTOP one rank, the job run with --stopped-limit 4: the launcher names it after 2 s, aborts the job
         * after 4 s (exit 125) and kills it after the grace period.
         */
        STOP,
        /**
         * SIGKILL the launcher and one rank together: the survivors abort, and the last one out removes the file
         * (the dead rank does not count) and the dead rank's doorbell.
         */
        LAUNCHER_AND_RANK,
        /** SIGKILL the whole process group: the file stays until the next sm4j run. */
        GROUP,
        /**
         * SIGKILL the launcher as soon as the segment appears, before the ranks attach: the ranks, started before
         * the file, find it dead, and the last of them to leave removes the file.
         */
        STARTING,
        /** SIGKILL the launcher while it allocates: the ranks find it dead and remove the temporary file. */
        ALLOCATING_KILL,
        /** SIGTERM the launcher while it allocates: its shutdown hook removes the partial file. */
        ALLOCATING_TERM
    }

    @ParameterizedTest
    @EnumSource(Kill.class)
    @Timeout(180)
    void noSegmentShouldOutliveAKilledJob(final Kill kill) throws Exception
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-kill-"))
        {
            final boolean allocating = kill == Kill.ALLOCATING_KILL || kill == Kill.ALLOCATING_TERM;
            // 4 GiB of max-size fragments: allocating them takes long enough to be caught at it
            // the launcher's output goes to a file, as a terminal's would stay: a pipe to this JVM is closed when the
            // launcher exits, and ranks that outlive a killed launcher write to it after that
            final Path log = Files.createTempFile("sm4j-kill-", ".log");
            final Process launcher = startLauncher(dir.path, log, allocating ?
                List.of("--max-frag", "16777216", "--max-frags-per-rank", "64") :
                kill == Kill.STOP ? List.of("--stopped-limit", "4", "--grace", "1000") :
                kill == Kill.TERM_STUCK ? List.of("--grace", "2000") : List.of(), kill == Kill.TERM_STUCK ? "stuck-hook" : "");
            final List<ProcessHandle> ranks = new ArrayList<>();
            try
            {
                if (allocating || kill == Kill.STARTING)
                {
                    awaitFile(dir.path, launcher, kill == Kill.STARTING ? name -> name.endsWith(".seg") :
                        name -> name.contains(".creating-"));
                    ranks.addAll(launcher.descendants().toList()); // started before the file
                    Procs.signal(kill == Kill.ALLOCATING_TERM ? "-TERM" : "-KILL", Long.toString(launcher.pid()));
                    awaitEnd(launcher, log);
                    assertEquals(4, ranks.size(), "ranks started before the file was made");
                    for (final ProcessHandle rank : ranks)
                    {
                        rank.onExit().get(60, TimeUnit.SECONDS);
                    }
                }
                else
                {
                    ranks.addAll(awaitWaiting(log, launcher));
                    assertEquals(4, ranks.size(), "all ranks attached");
                    assertEquals("would remove 0 stale segments", lastLine(clean(dir.path, "--dry-run")), "a live job is kept");
                    assumeFalse(kill == Kill.INT && ignoresInterrupt(launcher.pid()), "the launcher ignores SIGINT, as " +
                        "everything a non-interactive shell starts in the background does (and this test's JVM did): the JVM " +
                        "then installs no handler for it, and a SIGINT does nothing, as Unix intends");
                    kill(kill, launcher, ranks);
                    awaitEnd(launcher, log);
                    for (final ProcessHandle rank : ranks)
                    {
                        rank.onExit().get(60, TimeUnit.SECONDS);
                    }
                }
                switch (kill)
                {
                    case RANK, LAUNCHER_AND_RANK, STARTING, ALLOCATING_KILL, ALLOCATING_TERM ->
                        assertEquals(List.of(), files(dir.path), "removed by the job itself");
                    case LAUNCHER ->
                    {
                        assertEquals(List.of(), files(dir.path), "removed by the job itself");
                        final String output = Files.readString(log);
                        for (int rank = 0; rank < 4; rank++)
                        {
                            // the launcher's pipes have no reader: each rank says why it stops on the launcher's stderr
                            assertTrue(output.matches("(?s).*\\[" + rank + "] sm4j: job aborted by rank \\d: the launcher \\(pid " +
                                launcher.pid() + "\\) died \\(the launcher, pid " + launcher.pid() + ", is gone: rank " + rank +
                                ", pid \\d+, says so itself\\)\n.*"), output);
                        }
                    }
                    case STOP ->
                    {
                        assertEquals(List.of(), files(dir.path), "removed by the launcher");
                        assertEquals(JobLauncher.STOPPED, launcher.exitValue());
                        final String output = Files.readString(log);
                        final long pid = ranks.get(2).pid();
                        assertTrue(output.matches("(?s).*sm4j run: rank \\d \\(pid " + pid + "\\) has been stopped for 2\\.\\d s " +
                            "\\(SIGSTOP, Ctrl-Z or a native debugger\\): the ranks that wait for it wait too; the job is aborted after 4 s\n.*"),
                            output);
                        assertTrue(output.matches("(?s).*sm4j run: rank \\d \\(pid " + pid + "\\) was stopped for 4\\.\\d s " +
                            "\\(--stopped-limit 4\\); aborting the job\n.*"), output);
                    }
                    case TERM_STUCK ->
                    {
                        assertEquals(List.of(), files(dir.path), "removed by the launcher");
                        assertEquals(143, launcher.exitValue());
                        final String output = Files.readString(log);
                        assertTrue(output.contains("sm4j run: interrupted (SIGINT, SIGTERM or SIGHUP): sent SIGTERM to rank(s) " +
                            "[0, 1, 2, 3]; killing any still running after 2000 ms\n"), output);
                        assertTrue(output.contains("[2] rank 2: shutdown hook stuck\n"), output);
                        assertTrue(output.matches("(?s).*sm4j run: killed rank\\(s\\) \\[2] after the 2000 ms grace period\n.*"), output);
                    }
                    case TERM, INT ->
                    {
                        assertEquals(List.of(), files(dir.path), "removed by the launcher");
                        assertEquals(kill == Kill.TERM ? 143 : 130, launcher.exitValue());
                        final String output = Files.readString(log);
                        assertTrue(output.contains("sm4j run: interrupted (SIGINT, SIGTERM or SIGHUP): sent SIGTERM to rank(s) " +
                            "[0, 1, 2, 3]; killing any still running after 5000 ms\n"), output);
                        for (int rank = 0; rank < 4; rank++)
                        {
                            assertTrue(output.contains("[" + rank + "] rank " + rank + ": shutdown hook ran\n"), output);
                        }
                        assertTrue(output.contains("sm4j run: every rank stopped\n"), output);
                    }
                    case GROUP ->
                    {
                        assertEquals(1, segments(dir.path), "left by the killed job (with the killed ranks' doorbells and shared buffers)");
                        assertEquals(4, files(dir.path).stream().filter(name -> name.contains(".win-")).count(), "a shared buffer per rank");
                        final StringWriter err = new StringWriter();
                        final int code = Sm4jCli.execute(new String[]{ "run", "-n", "2", "--dir", dir.path.toString(), "--",
                            RingApp.class.getName(), "64" }, new PrintWriter(new StringWriter(), true), new PrintWriter(err, true));
                        assertEquals(0, code, err.toString());
                        assertTrue(err.toString().contains("sm4j run: removed stale segment " + dir.path), err.toString());
                    }
                }
                assertEquals(List.of(), files(dir.path));
            }
            finally
            {
                launcher.destroyForcibly();
                ranks.forEach(ProcessHandle::destroyForcibly);
                Files.deleteIfExists(log);
            }
        }
    }

    /**
     * @return true if process {@code pid} ignores SIGINT ({@code SigIgn} in its {@code /proc/PID/status}).
     */
    private static boolean ignoresInterrupt(final long pid) throws IOException
    {
        final long sigint = 1L << (2 - 1); // bit n - 1 for signal n
        return Files.readAllLines(Path.of("/proc", Long.toString(pid), "status")).stream()
            .filter(line -> line.startsWith("SigIgn:"))
            .anyMatch(line -> (Long.parseUnsignedLong(line.substring("SigIgn:".length()).trim(), 16) & sigint) != 0);
    }

    /**
     * Waits up to 60 s for the launcher to end. If it does not, fails with what it printed, and with its threads
     * (a SIGQUIT makes its JVM print them into the same log): a hang that shows only under load (seen once in
     * CI, the INT case, run where SIGINT was ignored: {@link #ignoresInterrupt}) is then readable from the failure.
     */
    private static void awaitEnd(final Process launcher, final Path log) throws IOException, InterruptedException
    {
        if (launcher.waitFor(60, TimeUnit.SECONDS))
        {
            return;
        }
        Procs.signal("-QUIT", Long.toString(launcher.pid()));
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        // the JVM ends a thread dump's threads with its count of JNI references: the dump is whole once it is there
        while (!Files.readString(log).contains("JNI global refs") && System.nanoTime() < deadline)
        {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50)); // a poll of the file for the dump
        }
        fail("the launcher did not end within 60 s of the kill; it printed:\n" + Files.readString(log));
    }

    /**
     * @return the 4 ranks, once each has said it is waiting in the launcher's output.
     */
    private static List<ProcessHandle> awaitWaiting(final Path log, final Process launcher) throws IOException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        List<ProcessHandle> ranks = WaitingRanks.in(Files.readString(log));
        while (ranks.size() < 4)
        {
            assertTrue(launcher.isAlive() && System.nanoTime() < deadline, "ranks did not all attach: " + Files.readString(log));
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5)); // a poll of the file, not a wait for time
            ranks = WaitingRanks.in(Files.readString(log));
        }
        return ranks;
    }

    private static Process startLauncher(final Path dir, final Path log, final List<String> options, final String variant)
        throws IOException
    {
        final List<String> command = new ArrayList<>(List.of(Sm4jCli.class.getName(), "run", "-n", "4", "--dir", dir.toString()));
        command.addAll(options);
        command.addAll(List.of("--", FailureApp.class.getName(), "wait"));
        if (!variant.isEmpty())
        {
            command.add(variant);
        }
        final List<String> line = new ArrayList<>(List.of("setsid"));
        line.addAll(JobLauncher.javaCommand(System.getProperty("java.class.path"), List.of("-Xmx256m"), command));
        return new ProcessBuilder(line).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    private static void kill(final Kill kill, final Process launcher, final List<ProcessHandle> ranks) throws Exception
    {
        switch (kill)
        {
            case RANK -> Procs.signal("-KILL", Long.toString(ranks.get(2).pid()));
            case LAUNCHER -> Procs.signal("-KILL", Long.toString(launcher.pid()));
            case TERM, TERM_STUCK -> Procs.signal("-TERM", Long.toString(launcher.pid()));
            case INT -> Procs.signal("-INT", Long.toString(launcher.pid()));
            case STOP -> Procs.signal("-STOP", Long.toString(ranks.get(2).pid()));
            case LAUNCHER_AND_RANK -> Procs.signal("-KILL", Long.toString(launcher.pid()), Long.toString(ranks.get(1).pid()));
            case GROUP -> Procs.signal("-KILL", "-" + processGroup(ranks.get(0).pid()));
            default -> throw new IllegalArgumentException(kill.name());
        }
    }

    /**
     * @return the process group of {@code pid}: field 5 of /proc/PID/stat.
     */
    private static long processGroup(final long pid) throws IOException
    {
        return Long.parseLong(Procs.statField(pid, 2));
    }

    private static void awaitFile(final Path dir, final Process launcher, final Predicate<String> name) throws Exception
    {
        while (files(dir).stream().noneMatch(name))
        {
            assertTrue(launcher.isAlive(), "the launcher ended before it made the file");
            Thread.onSpinWait();
        }
    }

    /**
     * @return segment files, complete or not, leaving out the doorbell sockets of ranks killed with them.
     */
    private static long segments(final Path dir) throws IOException
    {
        return files(dir).stream().filter(name -> name.endsWith(".seg")).count();
    }

    private static List<String> files(final Path dir) throws IOException
    {
        try (Stream<Path> files = Files.list(dir))
        {
            return files.map(path -> path.getFileName().toString()).toList();
        }
    }

    private static String clean(final Path dir, final String... options)
    {
        final List<String> args = new ArrayList<>(List.of("clean", "--dir", dir.toString()));
        args.addAll(List.of(options));
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        assertEquals(0, Sm4jCli.execute(args.toArray(String[]::new), new PrintWriter(out, true), new PrintWriter(err, true)),
            err.toString());
        return out.toString();
    }

    private static String lastLine(final String text)
    {
        final List<String> lines = text.lines().toList();
        return lines.get(lines.size() - 1).replaceAll(" in .*", "").replaceAll(" \\(.*", "");
    }

}
