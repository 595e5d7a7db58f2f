package io.sm4j.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs the CLI in-process and keeps what it printed.
 */
record CliRun(int exitCode, String out, String err)
{
    static CliRun of(final String... args)
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = Sm4jCli.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new CliRun(code, out.toString(), err.toString());
    }

    /**
     * Asserts the rejection every bad input gets: exit code 2, nothing on stdout, one line on stderr that
     * starts with {@code expected}, no stack trace.
     *
     * @param commandLine the arguments, separated by white space.
     */
    static void assertRejected(final String commandLine, final String expected)
    {
        final CliRun run = of(commandLine.trim().split("\\s+"));
        assertEquals(2, run.exitCode(), run.err());
        assertTrue(run.err().startsWith(expected), run.err());
        assertEquals(1, run.err().lines().count(), "one line: " + run.err());
        assertFalse(run.err().contains("\tat "), "no stack trace: " + run.err());
        assertEquals("", run.out());
    }
}
