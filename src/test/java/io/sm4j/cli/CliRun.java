package io.sm4j.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

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
     * Asserts the rejection of a {@code flag} naming a file under a regular file (its directory cannot be made): one
     * line naming the flag and the directory, before the command does anything.
     *
     * @param command the command and its other arguments, e.g. {@code report --sweep 2..3}.
     */
    static void assertRejectedUnderAFile(final Path dir, final String command, final String flag, final String name)
        throws IOException
    {
        final Path file = Files.writeString(dir.resolve("afile"), "x");
        final Path out = file.resolve(name);
        assertRejected(command + " " + flag + " " + out, "sm4j " + command.split(" ")[0] + ": " + flag + " " + out +
            ": cannot create its directory " + file + " (FileAlreadyExistsException: " + file + ")");
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
