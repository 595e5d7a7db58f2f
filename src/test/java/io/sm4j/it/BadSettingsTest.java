package io.sm4j.it;

import io.sm4j.cli.Sm4jCli;
import io.sm4j.launch.JobLauncher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code sm4j run} reads the ranks' settings once, before it starts any rank: a bad one is one line from the
 * launcher (exit 2), not a stack trace from every rank, and no file is made. A JVM without the flag Agrona
 * needs is told so in one line before it makes a file.
 */
class BadSettingsTest
{
    @Test
    @Timeout(60)
    void aJvmWithoutTheFlagShouldBeToldInOneLineBeforeAnyFileIsMade() throws Exception
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-flag-"))
        {
            final Process jvm = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), CreateApp.class.getName(), dir.path.toString()).start();
            jvm.getOutputStream().close();
            final String out = new String(jvm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            final String err = new String(jvm.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(jvm.waitFor(30, TimeUnit.SECONDS));
            assertEquals(1, jvm.exitValue(), out + err);
            assertEquals("Exception in thread \"main\" io.sm4j.segment.BadSettingException: sm4j needs the JVM flag " +
                "--add-opens java.base/jdk.internal.misc=ALL-UNNAMED (Agrona uses jdk.internal.misc.Unsafe): add it to the " +
                "java command line, to Maven surefire's <argLine>, or to Gradle's jvmArgs; sm4j run and bin/sm4j add it to " +
                "the JVMs they start\n", err);
            assertTrue(dir.isEmpty(), "no file made");
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "SM4J_IDLE|fast|SM4J_IDLE=fast is not one of [auto, spin, yield, block]",
        "SM4J_DOORBELL|fast|SM4J_DOORBELL=fast is not one of [auto, socket, futex]",
        "SM4J_PEER_READS|maybe|SM4J_PEER_READS=maybe is not one of [auto, on, off]",
        "SM4J_UNEXPECTED_BYTES|lots|SM4J_UNEXPECTED_BYTES=lots is not an integer",
        "SM4J_ATTACH_TIMEOUT_MS|-5|SM4J_ATTACH_TIMEOUT_MS=-5 (expected: > 0 ms)",
        "SM4J_LAZY_FREE|99999|SM4J_LAZY_FREE=99999 (expected: 1..128, or 0 for half the queue)" })
    @Timeout(60)
    void aBadSettingShouldBeOneLineFromTheLauncher(final String name, final String value, final String said) throws Exception
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-settings-"))
        {
            final ProcessBuilder builder = new ProcessBuilder(JobLauncher.javaCommand(System.getProperty("java.class.path"),
                List.of(), List.of(Sm4jCli.class.getName(), "run", "-n", "2", "--dir", dir.path.toString(), "--",
                    AttachApp.class.getName())));
            builder.environment().put(name, value);
            final Process launcher = builder.start();
            launcher.getOutputStream().close();
            final String out = new String(launcher.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            final String err = new String(launcher.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(launcher.waitFor(30, TimeUnit.SECONDS));
            assertEquals(2, launcher.exitValue(), out + err);
            assertEquals("sm4j run: " + said + "\n", err);
            assertEquals("", out, "no rank started");
            assertTrue(dir.isEmpty(), "no file made");
        }
    }

    /**
     * A futex asked of a JDK that has none is refused by the launcher before any rank starts (its ranks would
     * run on this JVM's JDK).
     */
    @Test
    @Timeout(60)
    void aFutexDoorbellOnAJdkWithoutOneShouldBeOneLineFromTheLauncher() throws Exception
    {
        final int feature = Runtime.version().feature();
        org.junit.jupiter.api.Assumptions.assumeTrue(feature < 22, "this JDK has a futex");
        aBadSettingShouldBeOneLineFromTheLauncher("SM4J_DOORBELL", "futex", "SM4J_DOORBELL=futex, but ranks on this " +
            "JDK cannot call a futex: JDK " + feature + " has no foreign function API, JDK 22+ has");
    }
}
