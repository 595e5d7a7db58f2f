package io.sm4j.cli;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HelpTest
{
    private static final Pattern SUMMARY = Pattern.compile("^  (\\w+)\\s+(.*)$");

    @Test
    void everySubcommandSummaryShouldBeAWholeSentence()
    {
        final CliRun run = CliRun.of("--help");
        assertEquals(0, run.exitCode());
        final String commands = run.out().substring(run.out().indexOf("Commands:"));
        // a summary may wrap onto indented continuation lines; join them before checking
        final String joined = commands.replaceAll("\n {10,}", " ");
        int seen = 0;
        for (final String line : joined.lines().skip(1).toList())
        {
            final Matcher m = SUMMARY.matcher(line);
            assertTrue(m.matches(), line);
            assertTrue(m.group(2).matches("[A-Z].*\\.$"), "not a sentence: " + line);
            seen++;
        }
        assertEquals(8, seen, joined);
    }

    @Test
    void everySubcommandShouldHaveHelp()
    {
        for (final String command : List.of("demo", "run", "create", "clean", "stat", "bench", "report"))
        {
            final CliRun run = CliRun.of(command, "--help");
            assertEquals(0, run.exitCode(), command);
            assertTrue(run.out().startsWith("Usage: sm4j " + command), run.out());
        }
    }

    @Test
    void versionShouldBeTheBuildsVersion()
    {
        final CliRun run = CliRun.of("--version");
        assertEquals(0, run.exitCode());
        assertTrue(run.out().matches("sm4j \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?\n"), run.out());
    }
}
