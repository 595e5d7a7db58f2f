package io.sm4j.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The rank processes of a launched {@link FailureApp} {@code wait} job, from their "rank R pid P waiting"
 * lines in the launcher's output.
 */
final class WaitingRanks
{
    private static final Pattern WAITING = Pattern.compile("\\[\\d+] rank \\d+ pid (\\d+) waiting");

    private WaitingRanks()
    {
    }

    /**
     * @return the ranks whose "waiting" lines {@code output} holds.
     */
    static List<ProcessHandle> in(final String output)
    {
        final List<ProcessHandle> ranks = new ArrayList<>();
        for (final String line : output.lines().toList())
        {
            final Matcher matcher = WAITING.matcher(line);
            if (matcher.matches())
            {
                ProcessHandle.of(Long.parseLong(matcher.group(1))).ifPresent(ranks::add);
            }
        }
        return ranks;
    }

    static List<ProcessHandle> read(final Process launcher, final int count)
    {
        final List<ProcessHandle> ranks = new ArrayList<>();
        final BufferedReader lines = new BufferedReader(new InputStreamReader(launcher.getInputStream(), StandardCharsets.UTF_8));
        try
        {
            for (String line = lines.readLine(); line != null && ranks.size() < count; line = ranks.size() < count ? lines.readLine() : null)
            {
                final Matcher matcher = WAITING.matcher(line);
                if (matcher.matches())
                {
                    ranks.add(ProcessHandle.of(Long.parseLong(matcher.group(1))).orElseThrow());
                }
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        final Thread drain = new Thread(() -> lines.lines().forEach(line -> { }));
        drain.setDaemon(true);
        drain.start();
        return ranks;
    }
}
