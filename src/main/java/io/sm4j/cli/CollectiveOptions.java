package io.sm4j.cli;

import io.sm4j.layout.LayoutParams;
import picocli.CommandLine.Option;

/**
 * The collective regions' parameters as command-line options: part of {@link LayoutOptions}, and on their
 * own in {@code sm4j bench}, which compares the region with point to point.
 */
public final class CollectiveOptions
{
    @Option(names = "--coll-contexts", paramLabel = "N",
        description = "Communicators whose collectives go through a region of the segment: the world's and the first N-1 that split or dup make; 0 sends every collective point to point (default: ${DEFAULT-VALUE}).")
    int collectiveContexts = LayoutParams.DEFAULT_COLLECTIVE_CONTEXTS;

    @Option(names = "--coll-buffer", paramLabel = "BYTES",
        description = "Bytes of each rank's buffer in a collective region, two halves used in turn, a power of two (default: by ranks, a 1 MiB budget divided by them: 262144 up to 4 ranks, 131072 up to 8, 65536 up to 16, 32768 from 17 on).")
    Integer collectiveBufferSize;

    LayoutParams.Builder applyTo(final LayoutParams.Builder builder)
    {
        builder.collectiveContexts(collectiveContexts);
        return collectiveBufferSize == null ? builder : builder.collectiveBufferSize(collectiveBufferSize);
    }
}
