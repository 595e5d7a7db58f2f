package io.sm4j.cli;

import io.sm4j.layout.LayoutParams;
import io.sm4j.segment.Segment;
import io.sm4j.segment.SegmentFiles;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code sm4j create}: a segment for ranks that something else starts.
 */
@Command(name = "create", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Creates a segment for N ranks and prints its path, for process managers that start the ranks themselves.",
        "",
        "Each rank r then joins with Communicator.attach(path, r, N). The file is removed when the last rank " +
            "closes its communicator; if the job never starts, delete it yourself.",
        "" },
    footer = { "", "Example:",
        "  seg=$(sm4j create -n 4) && for r in 0 1 2 3; do java ... com.example.Rank \"$seg\" $r 4 & done; wait" })
final class CreateCommand implements Callable<Integer>
{
    @Spec
    CommandSpec spec;

    @Option(names = { "-n", "--ranks" }, required = true, paramLabel = "N", description = "Ranks the segment is for.")
    int ranks;

    @Option(names = "--dir", paramLabel = "DIR",
        description = "Directory of the segment (default: $SM4J_DIR, else /dev/shm, else java.io.tmpdir).")
    Path dir;

    @Mixin
    LayoutOptions layout;

    @Override
    public Integer call()
    {
        final LayoutParams params = layout.toParams(ranks);
        final Path directory = SegmentFiles.directory(dir, spec.commandLine().getErr()::println);
        // a SIGTERM or Ctrl-C while the file is being allocated (hundreds of MB take seconds) leaves no partial file
        final Thread partials = new Thread(() -> SegmentFiles.deletePartials(directory), "sm4j-create-cleanup");
        Runtime.getRuntime().addShutdownHook(partials);
        try
        {
            spec.commandLine().getOut().println(Segment.createForRanks(params, directory, SegmentFiles.newJobId()));
        }
        finally
        {
            try
            {
                Runtime.getRuntime().removeShutdownHook(partials);
            }
            catch (final IllegalStateException shuttingDown)
            {
                // the hook runs
            }
        }
        return 0;
    }
}
