package io.sm4j.it;

import io.sm4j.cli.Sm4jCli;
import io.sm4j.launch.JobLauncher;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code sm4j run} reads the ranks' settings once, before it starts any rank: a bad one is one line from the
 * launcher (exit 2), not a stack trace from every rank, and no file is made.
 */
class BadSettingsTest
{
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "SM4J_IDLE|fast|SM4J_IDLE=fast is not one of [auto, spin, yield, block]",
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
}
