package io.sm4j.cli;

import io.sm4j.segment.SegmentFiles;
import io.sm4j.segment.StaleSegments;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code sm4j clean}: lists the segment files of a directory and removes those whose jobs are dead.
 */
@Command(name = "clean", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Lists the sm4j segment files of a directory and removes those whose jobs are dead.",
        "",
        "Each file is listed with its job id, owner, state, ranks alive, size and age. Dead jobs are " +
            "a launcher killed with its ranks, a rank job whose every rank died, a file " +
            "whose creator died while allocating it. A job is dead when none of the processes the file records is " +
            "alive (pid and start time, so a reused pid does not count). A live job's file is never removed; a " +
            "file that is not a readable segment of this version is listed and left alone. A dead job's ranks' " +
            "doorbell sockets and shared buffer files go with its segment; one whose segment is gone is removed too.",
        "",
        "sm4j run does the same in its directory before it creates a segment.",
        "" },
    footer = { "", "Examples:", "  sm4j clean --dry-run", "  sm4j clean --dir /tmp/sm4j" })
final class CleanCommand implements Callable<Integer>
{
    @Spec
    CommandSpec spec;

    @Option(names = "--dir", paramLabel = "DIR",
        description = "Directory to clean (default: $SM4J_DIR, else /dev/shm, else java.io.tmpdir).")
    Path dir;

    @Option(names = "--dry-run", description = "List what would be removed; remove nothing.")
    boolean dryRun;

    @Override
    public Integer call() throws IOException
    {
        final PrintWriter out = spec.commandLine().getOut();
        final Path directory = SegmentFiles.directory(dir, spec.commandLine().getErr()::println);
        final List<StaleSegments.Entry> entries = StaleSegments.scan(directory);
        if (entries.isEmpty())
        {
            out.println("no sm4j segments in " + directory);
            return 0;
        }
        out.printf(Locale.ROOT, "%-16s  %-10s  %-8s  %-11s  %15s  %8s  %s%n", "JOB", "OWNER", "STATE", "RANKS ALIVE", "BYTES",
            "AGE", "FILE: VERDICT");
        for (final StaleSegments.Entry entry : entries)
        {
            out.printf(Locale.ROOT, "%-16s  %-10s  %-8s  %-11s  %,15d  %8s  %s: %s%n", entry.jobId(), entry.owner(),
                entry.state().length() > 8 ? "?" : entry.state(),
                entry.ranks() == 0 ? "-" : entry.ranksAlive() + " of " + entry.ranks(), entry.size(), age(entry.age()),
                entry.path().getFileName(), entry.state().length() > 8 ? entry.state() + "; " + entry.verdict() : entry.verdict());
        }
        final List<StaleSegments.Entry> removed = StaleSegments.reclaim(directory, dryRun);
        final long bytes = removed.stream().mapToLong(StaleSegments.Entry::size).sum();
        out.printf(Locale.ROOT, "%s %d stale segment%s (%,d bytes) in %s%n", dryRun ? "would remove" : "removed", removed.size(),
            removed.size() == 1 ? "" : "s", bytes, directory);
        return 0;
    }

    private static String age(final Duration age)
    {
        final long seconds = age.toSeconds();
        return seconds < 120 ? seconds + " s" : seconds < 7200 ? seconds / 60 + " min" : seconds / 3600 + " h";
    }
}
