package io.sm4j.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(120)
class RunCommandTest
{
    @Test
    void shouldRunRanksPrefixingTheirOutputAndReturnZero()
    {
        final CliRun run = CliRun.of("run", "-n", "3", "--dir", "/dev/shm", "--", "io.sm4j.it.ExchangeApp", "20");
        assertEquals(0, run.exitCode(), run.out() + run.err());
        assertTrue(run.out().contains("[2] rank 2 received 40 fragments from 2 peers, all in order"), run.out());
    }

    @Test
    void shouldReturnTheRanksExitCodeWhenTheMainClassDoesNotExist()
    {
        final CliRun run = CliRun.of("run", "-n", "2", "--dir", "/dev/shm", "--", "no.such.Main");
        assertEquals(1, run.exitCode());
        assertTrue(run.err().contains("[0] Error: Could not find or load main class no.such.Main"), run.err());
        assertTrue(run.err().contains("sm4j run: rank "), run.err());
    }

    @Test
    void shouldRejectBadInputWithOneLineAndExitCodeTwo()
    {
        assertRejected("sm4j run: peers=1 (expected: >= 2)", "run", "-n", "1", "--", "Main");
        assertRejected("sm4j run: Missing required parameter: 'COMMAND'", "run", "-n", "2");
        assertRejected("sm4j run: segment directory " + Path.of("/no/such/dir") + " is not a writable directory",
            "run", "-n", "2", "--dir", "/no/such/dir", "--", "Main");
        assertRejected("sm4j run: -jar needs a jar file", "run", "-n", "2", "--", "-jar");
    }

    private static void assertRejected(final String expected, final String... args)
    {
        final CliRun run = CliRun.of(args);
        assertEquals(2, run.exitCode(), run.err());
        assertTrue(run.err().startsWith(expected), run.err());
        assertTrue(!run.err().contains("\tat "), run.err());
    }
}
