package io.sm4j.cli;

import io.sm4j.layout.InvalidParameterException;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

import java.lang.reflect.Field;
import java.util.List;

/**
 * The one line the tool prints for a rejected input: the flag as the user typed it, never a Java name,
 * with a hint where one helps.
 */
final class ErrorText
{
    private ErrorText()
    {
    }

    /**
     * @param args the command line as given.
     * @return the text for a parse error (unknown option, bad value, missing parameter).
     */
    static String of(final ParameterException ex, final List<String> args)
    {
        final String text = firstLine(ex.getMessage());
        final int end = args.indexOf("--");
        final List<String> options = end < 0 ? args : args.subList(0, end);
        if (options.contains("-np") || options.contains("--np"))
        {
            // picocli reads -np as -n p
            return "-np is not an option: the rank count is -n N (or --ranks N)";
        }
        if (ex instanceof UnmatchedArgumentException unmatched)
        {
            final List<String> suggestions = unmatched.getSuggestions();
            if (!suggestions.isEmpty())
            {
                return text + " (did you mean " + suggestions.get(0) + "?)";
            }
        }
        if (ex.getArgSpec() instanceof OptionSpec option)
        {
            // picocli names an option by its longest name: say the one typed (-n, not --ranks)
            return text.replace("'" + option.longestName() + "'", "'" + typedName(option, options) + "'");
        }
        return text;
    }

    /**
     * @return the text for a failure while the command ran: a layout parameter named by its flag, or the
     * exception's own message.
     */
    static String of(final Exception ex, final CommandLine commandLine)
    {
        if (ex instanceof InvalidParameterException invalid)
        {
            final String flag = typedName(commandLine, invalid.parameter());
            if (flag != null)
            {
                return flag + " " + invalid.value() + ": expected " + flagsIn(commandLine, invalid.expected());
            }
        }
        return flagsIn(commandLine, firstLine(ex.getMessage())); // a layout's "eagerLimit=..." as the flag that sets it
    }

    /**
     * @return the option that sets {@code parameter} (a field of that name, or -n for the rank count) as
     * the user typed it, or null if no option sets it.
     */
    private static String typedName(final CommandLine commandLine, final String parameter)
    {
        final OptionSpec option = "peers".equals(parameter) ? commandLine.getCommandSpec().findOption("-n") :
            optionOfField(commandLine, parameter);
        return option == null ? null : typedName(option, commandLine.getParseResult().originalArgs());
    }

    /**
     * @return the name of {@code option} as it appears in {@code args}, else its longest name.
     */
    private static String typedName(final OptionSpec option, final List<String> args)
    {
        for (final String arg : args)
        {
            for (final String name : option.names())
            {
                // --flag, --flag=V, and a short one with its value attached (-n5000)
                if (arg.equals(name) || arg.startsWith(name + "=") || name.length() == 2 && arg.startsWith(name))
                {
                    return name;
                }
            }
        }
        return option.longestName();
    }

    private static OptionSpec optionOfField(final CommandLine commandLine, final String field)
    {
        for (final OptionSpec option : commandLine.getCommandSpec().options())
        {
            if (option.userObject() instanceof Field f && f.getName().equals(field))
            {
                return option;
            }
        }
        return null;
    }

    /** Rewrites {@code name=value} references to other parameters as {@code --flag value}. */
    private static String flagsIn(final CommandLine commandLine, final String expected)
    {
        String text = expected;
        for (final OptionSpec option : commandLine.getCommandSpec().options())
        {
            if (option.userObject() instanceof Field f)
            {
                text = text.replace(f.getName() + "=", option.longestName() + " ");
            }
        }
        return text;
    }

    static String firstLine(final String message)
    {
        final String text = message == null ? "failed" : message.strip();
        final int newline = text.indexOf('\n');
        return newline < 0 ? text : text.substring(0, newline).strip();
    }
}
