package io.sm4j.cli;

import io.sm4j.layout.LayoutParams;
import picocli.CommandLine.Option;

/**
 * The large-message pipeline's parameters (fragment size and depth) as command-line options: part of
 * {@link LayoutOptions}, and on their own in {@code sm4j bench}, which tunes them.
 */
public final class PipelineOptions
{
    @Option(names = "--max-frag", paramLabel = "BYTES",
        description = "Bytes of one max-size fragment, header included (default: ${DEFAULT-VALUE}).")
    int maxFragSize = LayoutParams.DEFAULT_MAX_FRAG_SIZE;

    @Option(names = "--max-frags-per-rank", paramLabel = "N",
        description = "Max-size fragments each sender owns: the large-message pipeline's depth (default: ${DEFAULT-VALUE}).")
    int maxFragsPerRank = LayoutParams.DEFAULT_MAX_FRAGS_PER_RANK;

    LayoutParams.Builder applyTo(final LayoutParams.Builder builder)
    {
        return builder.maxFragSize(maxFragSize).maxFragsPerRank(maxFragsPerRank);
    }
}
