package io.sm4j.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

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
}
