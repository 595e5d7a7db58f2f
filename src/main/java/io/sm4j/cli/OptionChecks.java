package io.sm4j.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Checks of option values that picocli's types do not express, with the flag in the message.
 */
final class OptionChecks
{
    private OptionChecks()
    {
    }

    /**
     * @throws IllegalArgumentException {@code "--timeout 99: expected 0..31536000 seconds"}.
     */
    static void requireRange(final String flag, final long value, final long min, final long max, final String unit)
    {
        if (value < min || value > max)
        {
            throw new IllegalArgumentException(flag + " " + value + ": expected " + min + ".." + max + unit);
        }
    }

    /**
     * @throws IllegalArgumentException {@code "--format needs --sweep"} if {@code given} without {@code needed}.
     */
    static void requireWith(final boolean given, final String flag, final boolean needed, final String neededFlag)
    {
        if (given && !needed)
        {
            throw new IllegalArgumentException(flag + " applies only with " + neededFlag + "; it would be ignored");
        }
    }

    /**
     * Creates the directory {@code file} is to be written in, if it is missing.
     *
     * @throws IllegalArgumentException {@code "--chart a/b.png: cannot create its directory /x/a
     *                                  (FileAlreadyExistsException: /x/a)"}.
     */
    static void createDirectoryOf(final String flag, final Path file)
    {
        final Path parent = file.toAbsolutePath().getParent();
        if (parent == null)
        {
            return; // the root directory: there already
        }
        try
        {
            Files.createDirectories(parent);
        }
        catch (final IOException ex)
        {
            throw new IllegalArgumentException(flag + " " + file + ": cannot create its directory " + parent + " (" +
                ex.getClass().getSimpleName() + ": " + ex.getMessage() + ")", ex);
        }
    }
}
