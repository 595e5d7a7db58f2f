package io.sm4j.cli;

import io.sm4j.segment.Sm4jException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * Entry point of the {@code sm4j} tool.
 */
@Command(name = "sm4j", mixinStandardHelpOptions = true, versionProvider = Version.class,
    description = "Shared-memory message transport for JVM processes on one node.",
    subcommands = { DemoCommand.class, RunCommand.class, CreateCommand.class, CleanCommand.class, StatCommand.class, BenchCommand.class,
        ReportCommand.class,
        CommandLine.HelpCommand.class })
public final class Sm4jCli
{
    /** Exit code for invalid input and for a job that cannot be set up (no space, bad directory). */
    public static final int EXIT_USAGE = 2;

    private Sm4jCli()
    {
    }

    public static void main(final String[] args)
    {
        System.exit(execute(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
    }

    /**
     * Runs the tool without exiting the JVM. Every rejected input and every set-up failure is one line on
     * {@code err} naming the flag the user typed, and a failed file access one line naming the file, with exit
     * code {@link #EXIT_USAGE}; an unexpected exception (a bug) keeps its stack trace.
     *
     * @return the exit code.
     */
    public static int execute(final String[] args, final PrintWriter out, final PrintWriter err)
    {
        final CommandLine cli = new CommandLine(new Sm4jCli());
        cli.setOut(out);
        cli.setErr(err);
        cli.setCaseInsensitiveEnumValuesAllowed(true);
        cli.setUsageHelpAutoWidth(true);
        cli.setParameterExceptionHandler((ex, ignored) ->
        {
            err.println(ex.getCommandLine().getCommandSpec().qualifiedName() + ": " + ErrorText.of(ex, List.of(args)));
            return EXIT_USAGE;
        });
        cli.setExecutionExceptionHandler((ex, commandLine, ignored) ->
        {
            if (ex instanceof IllegalArgumentException || ex instanceof Sm4jException)
            {
                err.println(commandLine.getCommandSpec().qualifiedName() + ": " + ErrorText.of(ex, commandLine));
                return EXIT_USAGE;
            }
            final Throwable io = ex instanceof UncheckedIOException unchecked ? unchecked.getCause() : ex;
            if (io instanceof IOException)
            {
                // a file the command writes or reads (a --chart or --out path under a regular file, a full disk)
                err.println(commandLine.getCommandSpec().qualifiedName() + ": " + io.getClass().getSimpleName() + ": " +
                    ErrorText.firstLine(io.getMessage()));
                return EXIT_USAGE;
            }
            throw ex;
        });
        return cli.execute(args);
    }
}
