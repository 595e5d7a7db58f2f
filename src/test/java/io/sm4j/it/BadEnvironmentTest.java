package io.sm4j.it;

import io.sm4j.launch.JobLauncher;
import io.sm4j.layout.LayoutParams;
import io.sm4j.segment.Segment;
import io.sm4j.segment.BadSettingException;
import io.sm4j.transport.Endpoints;
import io.sm4j.transport.TransportOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A rank JVM started with a bad environment against a real segment fails with a clear exception (exit
 * code 1, no crash) and leaves the segment as it was: the file stays the creator's to remove.
 */
@Timeout(120)
class BadEnvironmentTest
{
    private ScratchDir dir;
    private Segment segment;

    @BeforeEach
    void createTwoRankSegment() throws IOException
    {
        dir = ScratchDir.create("sm4j-bad-env-");
        segment = Segment.create(LayoutParams.defaults(2), dir.path, 5);
    }

    @AfterEach
    void removeSegment() throws IOException
    {
        segment.close();
        assertTrue(dir.isEmpty(), "the creator removes the file");
        dir.close();
    }

    @Test
    void rankOutOfRangeShouldBeRefused() throws Exception
    {
        assertFails(env("2", "2"), "io.sm4j.segment.BadSettingException: rank=2, size=2 (expected: 0 <= rank < size)");
    }

    @Test
    void sizeDifferentFromTheSegmentShouldBeRefused() throws Exception
    {
        assertFails(env("0", "3"), "io.sm4j.segment.BadSettingException: size=3 but the segment ");
    }

    @Test
    void rankThatIsNotANumberShouldBeRefused() throws Exception
    {
        assertFails(env("one", "2"), "io.sm4j.segment.BadSettingException: SM4J_RANK=one is not an integer");
    }

    @Test
    void aBadSettingShouldBeOneLine() throws Exception
    {
        final Map<String, String> env = env("0", "2");
        env.put(TransportOptions.IDLE_ENV, "fast");
        assertFails(env, "io.sm4j.segment.BadSettingException: SM4J_IDLE=fast is not one of [auto, spin, yield, block]");
        env.put(TransportOptions.IDLE_ENV, "spin");
        env.put(TransportOptions.ATTACH_TIMEOUT_ENV, "-5");
        assertFails(env, "io.sm4j.segment.BadSettingException: SM4J_ATTACH_TIMEOUT_MS=-5 (expected: > 0 ms)");
    }

    @Test
    void aRankAlreadyHeldByAnotherProcessShouldBeRefused() throws Exception
    {
        segment.ranks().register(0);
        assertFails(env("0", "2"), "io.sm4j.segment.Sm4jException: rank 0 is already attached (pid " +
            ProcessHandle.current().pid() + ", state 1) in " + segment.path());
    }

    @Test
    void aMissingSegmentShouldTimeOutNamingWhatItWaitedFor() throws Exception
    {
        final Map<String, String> env = env("0", "2");
        final Path missing = dir.path.resolve("no-such-segment");
        env.put(Endpoints.SEGMENT_ENV, missing.toString());
        env.put(TransportOptions.ATTACH_TIMEOUT_ENV, "300");
        assertFails(env, "io.sm4j.segment.Sm4jException: segment " + missing + " not ready after 300 ms (waiting for the file to exist)");
    }

    private Map<String, String> env(final String rank, final String size)
    {
        return new java.util.HashMap<>(Map.of(Endpoints.SEGMENT_ENV, segment.path().toString(), Endpoints.RANK_ENV, rank,
            Endpoints.SIZE_ENV, size));
    }

    @Test
    void aMissingSegmentShouldSayWithinASecondWhatItWaitsFor() throws Exception
    {
        final Map<String, String> env = env("0", "2");
        final Path missing = dir.path.resolve("no-such-segment");
        env.put(Endpoints.SEGMENT_ENV, missing.toString());
        env.put(TransportOptions.ATTACH_TIMEOUT_ENV, "2500");
        final String err = assertFails(env, "io.sm4j.segment.Sm4jException: segment " + missing + " not ready after 2500 ms");
        assertTrue(err.startsWith("sm4j: waiting for segment " + missing + " to appear (made by sm4j create or " +
            "Communicator.createSegment; if it never comes, check SM4J_SEGMENT); giving up after 2500 ms\n"), err);
    }

    @Test
    void aSegmentInADirectoryThatDoesNotExistShouldFailAtOnce() throws Exception
    {
        final Map<String, String> env = env("0", "2");
        final Path missing = dir.path.resolve("no-such-dir").resolve("segment");
        env.put(Endpoints.SEGMENT_ENV, missing.toString());
        assertFails(env, "io.sm4j.segment.Sm4jException: segment " + missing + " cannot appear: its directory " +
            missing.getParent() + " does not exist");
    }

    /**
     * @return what the rank printed on stderr.
     */
    private static String assertFails(final Map<String, String> env, final String firstLine) throws Exception
    {
        final ProcessBuilder builder = new ProcessBuilder(JobLauncher.javaCommand(System.getProperty("java.class.path"),
            List.of(), List.of(AttachApp.class.getName())));
        builder.environment().putAll(env);
        final Process process = builder.start();
        process.getOutputStream().close();
        final String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        final String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        assertEquals(1, process.exitValue(), out + err);
        assertTrue(err.lines().filter(line -> line.startsWith("Exception")).findFirst().orElse("")
            .startsWith("Exception in thread \"main\" " + firstLine), err);
        assertEquals(1, err.lines().filter(line -> line.startsWith("Exception")).count(), err);
        if (firstLine.startsWith(BadSettingException.class.getName()))
        {
            assertEquals(1, err.lines().count(), "a bad setting is one line: " + err);
        }
        assertTrue(!err.contains("SIGBUS") && !err.contains("hs_err"), err);
        return err;
    }
}
