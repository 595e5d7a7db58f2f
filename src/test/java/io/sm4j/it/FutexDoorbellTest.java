package io.sm4j.it;

import io.sm4j.launch.JobLauncher;
import io.sm4j.message.Communicator;
import io.sm4j.segment.BadSettingException;
import io.sm4j.transport.Endpoints;
import io.sm4j.transport.TransportOptions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Ranks that sleep on a futex (JDK 22+), over real JVMs: no wake-up is lost when every send lands while the
 * receiver arms, and a job with one JDK 17 rank keeps everyone on sockets (a JDK 17 rank cannot wake a
 * futex). The JDK 22+ is {@code -Dsm4j.jdk22=HOME}, else the newest under /usr/lib/jvm (this kind of machine
 * ships Temurin 25 there); without one these two tests are skipped. The build itself runs on JDK 17.
 */
class FutexDoorbellTest
{
    private static final int WAKE_UPS = 20_000;
    private static final Pattern RECEIVER = Pattern.compile(
        "rank 1 received (\\d+) messages, slept (\\d+) times, (\\d+) sleeps timed out, (\\d+) blocks on a futex");
    private static final Pattern SENDER = Pattern.compile(
        "rank 0 sent \\d+ messages, (\\d+) of them to an armed rank 1, .*, (\\d+) sleeps its sends held up could excuse");

    @Test
    @Timeout(300)
    void ranksOnAFutexShouldLoseNoWakeUpWhenSendsLandWhileTheReceiverArms() throws Exception
    {
        final Path newer = newerJava();
        final Run run = runWakeStorm(newer, newer, "futex");
        assertEquals(WAKE_UPS, run.received(), run.output);
        assertTrue(run.futexBlocks() >= WAKE_UPS / 2, "the receiver should have slept on its futex: " + run.output);
        assertTrue(run.timedOut() <= run.heldUp(), "a sleep ended by timeout while the sender was on time: " + run.output);
    }

    @Test
    @Timeout(300)
    void aJdk17RankShouldKeepTheJobOnSockets() throws Exception
    {
        final Path newer = newerJava();
        final Path current = Path.of(System.getProperty("java.home"), "bin", "java");
        Assumptions.assumeTrue(Runtime.version().feature() < 22, "this JVM can use a futex itself");
        final Run run = runWakeStorm(current, newer, "auto");
        assertEquals(WAKE_UPS, run.received(), run.output);
        assertEquals(0, run.futexBlocks(), "rank 1 slept on a futex that its JDK 17 peer cannot wake: " + run.output);
        assertTrue(run.sleeps() >= WAKE_UPS / 2, "the receiver should have slept on its socket: " + run.output);
        assertTrue(run.timedOut() <= run.heldUp(), "a sleep ended by timeout while the sender was on time: " + run.output);
    }

    @Test
    void aFutexAskedOfAJvmWithoutOneShouldBeRefusedInOneLine() throws IOException
    {
        Assumptions.assumeTrue(Runtime.version().feature() < 22, "this JVM can use a futex");
        try (ScratchDir dir = ScratchDir.create("sm4j-futex-"))
        {
            final Path segment = Communicator.createSegment(dir.path, 2);
            final TransportOptions futex = new TransportOptions(Duration.ofSeconds(5), 0, TransportOptions.Idle.AUTO, 0,
                TransportOptions.DEFAULT_UNEXPECTED_BYTES, TransportOptions.Bell.FUTEX, TransportOptions.PeerReads.AUTO);
            final BadSettingException refused =
                assertThrows(BadSettingException.class, () -> Communicator.attach(segment, 0, 2, futex));
            assertEquals("SM4J_DOORBELL=futex, but this JVM cannot call a futex: JDK " + Runtime.version().feature() +
                " has no foreign function API, JDK 22+ has", refused.getMessage());
            Files.deleteIfExists(segment);
        }
    }

    /**
     * Rank 0 on {@code sender}, rank 1 on {@code receiver}, over a segment this test creates: rank 0 times
     * each of {@link #WAKE_UPS} sends to land while rank 1 arms ({@link WaitApp} wake).
     */
    private static Run runWakeStorm(final Path sender, final Path receiver, final String bell) throws Exception
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-futex-"))
        {
            final Path segment = Communicator.createSegment(dir.path, 2);
            final List<Process> ranks = new ArrayList<>();
            final List<Path> logs = new ArrayList<>();
            final StringBuilder output = new StringBuilder();
            boolean finished = true;
            try
            {
                for (int rank = 0; rank < 2; rank++)
                {
                    final Path log = Files.createTempFile("sm4j-futex-rank" + rank + "-", ".log");
                    logs.add(log);
                    final List<String> command = new ArrayList<>(List.of((rank == 0 ? sender : receiver).toString()));
                    command.addAll(JobLauncher.JVM_FLAGS);
                    command.addAll(List.of("-cp", System.getProperty("java.class.path"), WaitApp.class.getName(),
                        "wake", Integer.toString(WAKE_UPS)));
                    final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                        .redirectOutput(log.toFile());
                    builder.environment().putAll(Map.of(Endpoints.SEGMENT_ENV, segment.toString(),
                        Endpoints.RANK_ENV, Integer.toString(rank), Endpoints.SIZE_ENV, "2",
                        TransportOptions.IDLE_ENV, "block", TransportOptions.BELL_ENV, bell));
                    ranks.add(builder.start());
                }
                for (final Process rank : ranks)
                {
                    finished &= rank.waitFor(240, TimeUnit.SECONDS);
                }
            }
            finally
            {
                for (final Process rank : ranks)
                {
                    rank.destroyForcibly().waitFor(); // reaped: no zombie, and its files are closed
                }
                for (final Path log : logs)
                {
                    output.append(Files.readString(log, StandardCharsets.UTF_8));
                    Files.delete(log);
                }
            }
            assertTrue(finished, "the ranks did not finish: " + output);
            for (final Process rank : ranks)
            {
                assertEquals(0, rank.exitValue(), output.toString());
            }
            Files.deleteIfExists(segment);
            assertTrue(dir.isEmpty(), "no doorbell socket left");
            return new Run(output.toString());
        }
    }

    /**
     * @return the java of a JDK 22 or later, or the test is skipped.
     */
    static Path newerJava() throws IOException
    {
        final String home = System.getProperty("sm4j.jdk22");
        if (home != null && !home.isEmpty())
        {
            return Path.of(home, "bin", "java");
        }
        final Path jvms = Path.of("/usr/lib/jvm");
        Optional<Path> newest = Optional.empty();
        if (Files.isDirectory(jvms))
        {
            try (Stream<Path> homes = Files.list(jvms))
            {
                newest = homes.filter(h -> feature(h) >= 22 && Files.isExecutable(h.resolve("bin/java")))
                    .max(Comparator.comparingInt(FutexDoorbellTest::feature));
            }
        }
        Assumptions.assumeTrue(newest.isPresent(), "no JDK 22+ under /usr/lib/jvm: set -Dsm4j.jdk22=HOME");
        return newest.get().resolve("bin/java");
    }

    /**
     * @return the feature release a JDK's {@code release} file names (JAVA_VERSION="25.0.3"), 0 if none.
     */
    private static int feature(final Path home)
    {
        try
        {
            final Matcher version = Pattern.compile("JAVA_VERSION=\"(\\d+)").matcher(Files.readString(home.resolve("release")));
            return version.find() ? Integer.parseInt(version.group(1)) : 0;
        }
        catch (final IOException | RuntimeException ex)
        {
            return 0;
        }
    }

    /**
     * What the two ranks of a wake storm printed.
     */
    private record Run(String output)
    {
        private Matcher receiver()
        {
            final Matcher matcher = RECEIVER.matcher(output);
            assertTrue(matcher.find(), output);
            return matcher;
        }

        private Matcher sender()
        {
            final Matcher matcher = SENDER.matcher(output);
            assertTrue(matcher.find(), output);
            return matcher;
        }

        int received()
        {
            return Integer.parseInt(receiver().group(1));
        }

        long sleeps()
        {
            return Long.parseLong(receiver().group(2));
        }

        long timedOut()
        {
            return Long.parseLong(receiver().group(3));
        }

        long futexBlocks()
        {
            return Long.parseLong(receiver().group(4));
        }

        long heldUp()
        {
            return Long.parseLong(sender().group(2));
        }
    }
}
