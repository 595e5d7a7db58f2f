package io.sm4j.it;

import io.sm4j.cli.Sm4jCli;
import io.sm4j.launch.JobLauncher;
import io.sm4j.layout.CountersDescriptor;
import io.sm4j.message.ThreadJob;
import io.sm4j.segment.JobStats;
import io.sm4j.segment.Segment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code sm4j stat} on real files: a live two-JVM job (its counters, liveness and a rank asleep in a receive,
 * in text and JSON, and {@code --watch} until the job ends), the file of a job whose processes are gone, and
 * files that are not segments (one line each, no crash).
 */
@Timeout(180)
class StatCommandTest
{
    private static final int COUNT = 1000;
    private static final int SIZE = 100;

    @Test
    void aLiveJobShouldShowItsCountersAndRanksAndBeWatchedUntilItEnds() throws Exception
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-stat-"))
        {
            final Path log = Files.createTempFile("sm4j-stat-", ".log");
            final Path go = dir.path.resolve("go");
            final Process launcher = startStatApp(dir.path, log, go, COUNT, SIZE);
            try
            {
                awaitLog(log, launcher, "[0] rank 0 sent " + COUNT, "[1] rank 1 received " + COUNT);
                // rank 1 now waits in a receive: within a few milliseconds it sleeps on its doorbell
                String json = stat("--dir", dir.path.toString(), "--format", "json");
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (!json.contains("\"rank\":1,") || !rank(json, 1).contains("\"activity\":\"sleeping\""))
                {
                    assertTrue(System.nanoTime() < deadline, "rank 1 never shown sleeping: " + json);
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10)); // a poll of what stat shows
                    json = stat("--dir", dir.path.toString(), "--format", "json");
                }
                assertTrue(json.matches("\\[\\{\"segment\":\"" + Pattern.quote(dir.path.toString()) + "/sm4j-[^\"]+\\.seg\"," +
                    "\"state\":\"READY\",\"abort\":null,\"ranks\":\\[.*]}]\n"), json);
                final String zero = rank(json, 0);
                final String one = rank(json, 1);
                assertTrue(zero.matches("\\{\"rank\":0,\"pid\":\\d+,\"state\":\"attached\",\"alive\":true,\"activity\":\"(running|spinning|yielding|sleeping)\",.*"), zero);
                assertTrue(one.matches("\\{\"rank\":1,\"pid\":\\d+,\"state\":\"attached\",\"alive\":true,\"activity\":\"sleeping\",.*"), one);
                assertEquals(List.of((long)COUNT, (long)COUNT * SIZE, 0L, 0L, (long)COUNT), List.of(field(zero, "messages_sent"),
                    field(zero, "bytes_sent"), field(zero, "messages_received"), field(zero, "bytes_received"),
                    field(zero, "box_sends") + field(zero, "fifo_sends")), zero);
                assertEquals(List.of(0L, 0L, (long)COUNT, (long)COUNT * SIZE, 0L, 0L), List.of(field(one, "messages_sent"),
                    field(one, "bytes_sent"), field(one, "messages_received"), field(one, "bytes_received"), field(one, "box_sends"),
                    field(one, "unexpected_bytes")), one);
                assertTrue(field(one, "unexpected_limit") > 0 && field(one, "heartbeat_ms") >= 0, one);
                final Path segment = Path.of(json.replaceAll("(?s)^\\[\\{\"segment\":\"([^\"]+)\".*", "$1"));
                final String text = stat(segment.toString());
                assertTrue(text.startsWith(segment + ": READY, 2 ranks\n"), text);
                assertTrue(text.matches("(?s).*\n +1 +\\d+ attached yes +sleeping +\\d+ +0 +0 +1,000 +100,000 +0 +\\d+ +0\\.0 0 / [\\d,]+\n"),
                    text);
                // --watch shows the job again until its file goes with it
                final StringWriter watchOut = new StringWriter(); // a StringBuffer inside: read while the watch writes
                final CompletableFuture<Integer> watch = CompletableFuture.supplyAsync(() -> Sm4jCli.execute(
                    new String[]{ "stat", segment.toString(), "--watch", "0.2" }, new PrintWriter(watchOut, true),
                    new PrintWriter(new StringWriter(), true)));
                while (!watchOut.toString().contains(segment + ": READY, 2 ranks\n"))
                {
                    assertTrue(System.nanoTime() < deadline && !watch.isDone(), "the watch showed nothing: " + watchOut);
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5)); // a poll of what the watch printed
                }
                Files.createFile(go);
                assertTrue(launcher.waitFor(60, TimeUnit.SECONDS), "the job ended");
                assertEquals(0, launcher.exitValue(), Files.readString(log));
                assertEquals(0, watch.get(60, TimeUnit.SECONDS));
                final String watched = watchOut.toString();
                assertTrue(watched.startsWith("-- ") && watched.contains(segment + ": READY, 2 ranks\n"), watched);
                assertTrue(watched.endsWith(segment + ": gone (the job has ended)\n"), watched);
                assertRejected(1, "sm4j stat: " + segment + ": no such file (the job has ended, or the name is wrong)",
                    "stat", segment.toString());
            }
            finally
            {
                launcher.destroyForcibly();
                Files.deleteIfExists(log);
            }
        }
    }

    /**
     * A rank waiting in a receive that never sleeps shows how it waits: {@code --idle spin} spins, {@code --idle
     * yield} yields (the counters' waiting mark).
     */
    @ParameterizedTest
    @CsvSource({ "spin, spinning", "yield, yielding" })
    void aRankThatWaitsWithoutSleepingShouldShowWhetherItSpinsOrYields(final String idle, final String activity) throws Exception
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-stat-"))
        {
            final Path log = Files.createTempFile("sm4j-stat-", ".log");
            final Path go = dir.path.resolve("go");
            final Process launcher = startStatApp(dir.path, log, go, 1, 1, "--idle", idle);
            try
            {
                awaitLog(log, launcher, "[0] rank 0 sent 1", "[1] rank 1 received 1");
                String json = stat("--dir", dir.path.toString(), "--format", "json");
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (!rank(json, 1).contains("\"activity\":\"" + activity + "\""))
                {
                    assertTrue(System.nanoTime() < deadline, "rank 1 never shown " + activity + ": " + json);
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10)); // a poll of what stat shows
                    json = stat("--dir", dir.path.toString(), "--format", "json");
                }
                Files.createFile(go);
                assertTrue(launcher.waitFor(60, TimeUnit.SECONDS), "the job ended");
                assertEquals(0, launcher.exitValue(), Files.readString(log));
            }
            finally
            {
                launcher.destroyForcibly();
                Files.deleteIfExists(log);
            }
        }
    }

    /**
     * A large message's fragments that wait for the max-size pool (1 MiB in 32 KiB fragments through a pipeline
     * of 8) count as the rank's room wait, as sends queued for an eager credit do.
     */
    @Test
    void largeMessagesWaitingForPoolRoomShouldCountAsRoomWait() throws Exception
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-stat-"))
        {
            final long[] roomWait = new long[1];
            ThreadJob.run(dir.path, 2, comm ->
            {
                final byte[] message = new byte[1 << 20];
                for (int i = 0; i < 4; i++)
                {
                    if (comm.rank() == 0)
                    {
                        comm.send(1, 0, message); // a heap array: through the fragment pipeline
                    }
                    else
                    {
                        comm.recv(0, 0, message);
                    }
                }
                if (comm.rank() == 0)
                {
                    final Path segment = JobStats.segments(dir.path).get(0);
                    final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    // the counter is published at the rank's health checks (every 100 ms): progress until one has
                    while ((roomWait[0] = JobStats.read(segment).ranks().get(0).counters()[CountersDescriptor.ROOM_WAIT_NANOS]) == 0 &&
                        System.nanoTime() < deadline)
                    {
                        comm.iprobe(1, 0);
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
                    }
                }
                comm.barrier();
            });
            assertTrue(roomWait[0] > 0, "no room wait counted for fragments the max-size pool refused");
        }
    }

    @Test
    void theFileOfAJobWithoutLiveProcessesShouldShowThemDead() throws Exception
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-stat-"))
        {
            final String created = run(0, "create", "-n", "3", "--dir", dir.path.toString()).trim(); // its creator exits
            final Path segment = Path.of(created.lines().reduce((a, b) -> b).orElseThrow());
            final String text = stat(segment.toString());
            assertTrue(text.startsWith(segment + ": READY, 3 ranks\n"), text);
            for (int rank = 0; rank < 3; rank++)
            {
                assertTrue(text.matches("(?s).*\n +" + rank + " +- absent +no +- +- +0 +0 +0 +0 +0 +0 +0\\.0 0 / 0\n.*"), text);
            }
            assertEquals(text, stat("--dir", dir.path.toString()), "the directory's one job");
            Files.delete(segment);
            assertEquals("no sm4j jobs in " + dir.path + "\n", stat("--dir", dir.path.toString()));
        }
    }

    /**
     * A job marked ABORTED (here as a failing rank's handler marks it) shows the state with the first reason, in
     * text and in JSON; a file cut short under its valid header (a copy truncated, a full /dev/shm) is one line
     * on stderr, not an exception, and {@code --dir} goes on to the other jobs.
     */
    @Test
    void anAbortedJobShouldShowItsReasonAndACutFileOneLine() throws Exception
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-stat-"))
        {
            final String created = run(0, "create", "-n", "2", "--dir", dir.path.toString()).trim();
            final Path segment = Path.of(created.lines().reduce((a, b) -> b).orElseThrow());
            Segment.recordFailure(segment, 1, "rank 1 failed: boom");
            Segment.recordFailure(segment, 0, "a later reason");
            final String text = stat(segment.toString());
            assertTrue(text.startsWith(segment + ": ABORTED ("), text);
            assertTrue(text.lines().findFirst().orElseThrow().contains("boom") && !text.contains("a later reason"), text);
            final String json = stat("--format", "json", segment.toString());
            assertTrue(json.contains("\"state\":\"ABORTED\",\"abort\":\"") && json.contains("boom"), json);

            final Path cut = dir.path.resolve("sm4j-user-00000000000000bb.seg");
            try (FileChannel from = FileChannel.open(segment);
                FileChannel to = FileChannel.open(cut, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE))
            {
                from.transferTo(0, from.size() / 2, to); // the header whole, half of the rest
            }
            final Output one = execute("stat", cut.toString());
            assertEquals(1, one.code(), one.err());
            assertEquals(1, one.err().lines().count(), one.err());
            assertTrue(one.err().startsWith("sm4j stat: " + cut + ": "), one.err());
            assertEquals("", one.out());
            final Output all = execute("stat", "--dir", dir.path.toString());
            assertEquals(0, all.code(), all.err());
            assertEquals(one.err(), all.err(), "the cut file, one line");
            assertTrue(all.out().startsWith(segment + ": ABORTED ("), all.out());
        }
    }

    @Test
    void filesThatAreNotSegmentsShouldBeOneLineEach() throws Exception
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-stat-"))
        {
            final Path garbage = dir.path.resolve("sm4j-user-0123456789abcdef.seg");
            final byte[] bytes = new byte[65536];
            new java.util.Random(7).nextBytes(bytes);
            Files.write(garbage, bytes);
            final Path empty = Files.createFile(dir.path.resolve("sm4j-user-00000000000000aa.seg"));
            assertRejected(1, "sm4j stat: " + garbage + ": not an sm4j segment: its magic is 0x" + Long.toHexString(java.nio.ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.nativeOrder()).getLong()), "stat", garbage.toString());
            assertRejected(1, "sm4j stat: " + empty + ": not an sm4j segment: shorter than a header", "stat", empty.toString());
            final Output all = execute("stat", "--dir", dir.path.toString());
            assertEquals(0, all.code(), all.err());
            assertEquals("no sm4j jobs in " + dir.path + "\n", all.out());
            assertEquals(List.of("sm4j stat: " + empty + ": not an sm4j segment: shorter than a header",
                "sm4j stat: " + garbage + ": not an sm4j segment: its magic is 0x" + Long.toHexString(java.nio.ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.nativeOrder()).getLong())), all.err().lines().toList());
            assertRejected(2, "sm4j stat: --watch must be 0 or between 0.01 and 3600 seconds, not -1.0", "stat", "--watch", "-1",
                garbage.toString());
            assertRejected(2, "sm4j stat: --watch must be 0 or between 0.01 and 3600 seconds, not 1.0E-10", "stat", "--watch", "1e-10",
                garbage.toString());
            assertRejected(2, "sm4j stat: give a SEGMENT or --dir, not both", "stat", garbage.toString(), "--dir", dir.path.toString());
            // a FIFO named as a segment (anyone may make one in /dev/shm): skipped, not opened (that would block for good)
            final Path fifo = dir.path.resolve("sm4j-x-1.seg");
            assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
            final Output withFifo = execute("stat", "--dir", dir.path.toString());
            assertEquals(0, withFifo.code(), withFifo.err());
            Files.delete(fifo);
            assertRejected(2, "sm4j stat: --dir " + garbage + " is not a directory", "stat", "--dir", garbage.toString());
        }
    }

    /**
     * Starts {@code sm4j run -n 2 [runOptions] -- StatApp count size go} in {@code dir}, its output to {@code log}.
     */
    private static Process startStatApp(
        final Path dir, final Path log, final Path go, final int count, final int size, final String... runOptions) throws Exception
    {
        final List<String> command = new ArrayList<>(List.of(Sm4jCli.class.getName(), "run", "-n", "2"));
        command.addAll(List.of(runOptions));
        command.addAll(List.of("--dir", dir.toString(), "--", StatApp.class.getName(), Integer.toString(count),
            Integer.toString(size), go.toString()));
        return new ProcessBuilder(JobLauncher.javaCommand(System.getProperty("java.class.path"), List.of("-Xmx256m"), command))
            .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    private static void assertRejected(final int code, final String line, final String... args)
    {
        final Output output = execute(args);
        assertEquals(code, output.code(), output.err());
        assertEquals(line + "\n", output.err());
    }

    private static String stat(final String... args)
    {
        final List<String> all = new ArrayList<>(List.of("stat"));
        all.addAll(List.of(args));
        return run(0, all.toArray(String[]::new));
    }

    private static String run(final int code, final String... args)
    {
        final Output output = execute(args);
        assertEquals(code, output.code(), output.err());
        return output.out();
    }

    /** What one {@code sm4j} command returned and wrote. */
    private record Output(int code, String out, String err)
    {
    }

    private static Output execute(final String... args)
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = Sm4jCli.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Output(code, out.toString(), err.toString());
    }

    private static long field(final String object, final String name)
    {
        final Matcher matcher = Pattern.compile("\"" + name + "\":(-?\\d+)").matcher(object);
        assertTrue(matcher.find(), name + " in " + object);
        return Long.parseLong(matcher.group(1));
    }

    /**
     * @return rank {@code rank}'s object in stat's JSON.
     */
    private static String rank(final String json, final int rank)
    {
        final Matcher matcher = Pattern.compile("\\{\"rank\":" + rank + ",[^}]*}").matcher(json);
        return matcher.find() ? matcher.group() : "";
    }

    private static void awaitLog(final Path log, final Process launcher, final String... lines) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        String output = Files.readString(log);
        while (!List.of(lines).stream().allMatch(output::contains))
        {
            assertTrue(launcher.isAlive() && System.nanoTime() < deadline, "the job did not get there: " + output);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5)); // a poll of the file, not a wait for time
            output = Files.readString(log);
        }
    }
}
