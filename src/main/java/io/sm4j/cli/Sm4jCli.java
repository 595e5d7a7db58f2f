package io.sm4j.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.PrintWriter;

/**
 * Entry point of the {@code sm4j} tool.
 */
@Command(name = "sm4j", mixinStandardHelpOptions = true, version = "sm4j 0.1.0",
    description = "Shared-memory message transport for JVM processes on one node.",
    subcommands = { DemoCommand.class, RunCommand.class, ReportCommand.class, CommandLine.HelpCommand.class })
public final class Sm4jCli
{
    /** Exit code for invalid input: bad options, bad parameters. */
    public static final int EXIT_USAGE = 2;

    public static void main(final String[] args)
    {
        System.exit(execute(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
    }

    /**
     * Runs the tool without exiting the JVM.
     *
     * @return the exit code.
     */
    public static int execute(final String[] args, final PrintWriter out, final PrintWriter err)
    {
        final CommandLine cli = new CommandLine(new Sm4jCli());
        cli.setOut(out);
        cli.setErr(err);
        cli.setParameterExceptionHandler((ex, ignored) ->
        {
            err.println(ex.getCommandLine().getCommandSpec().qualifiedName() + ": " + ex.getMessage());
            err.println("Try '" + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help'.");
            return EXIT_USAGE;
        });
        cli.setExecutionExceptionHandler((ex, commandLine, ignored) ->
        {
            if (ex instanceof IllegalArgumentException)
            {
                err.println(commandLine.getCommandSpec().qualifiedName() + ": " + ex.getMessage());
                return EXIT_USAGE;
            }
            throw ex;
        });
        return cli.execute(args);
    }
}
