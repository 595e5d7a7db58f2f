package io.sm4j.cli;

import io.sm4j.layout.LayoutParams;
import picocli.CommandLine.Option;

/**
 * The message protocol's sizes (the eager limit and the eager fragments per peer, and the large-message pipeline's
 * fragment size and depth) as command-line options: part of {@link LayoutOptions}, and on their own in
 * {@code sm4j bench}, which tunes them.
 */
public final class PipelineOptions
{
    @Option(names = "--eager-limit", paramLabel = "BYTES",
        description = "Bytes of one eager fragment, header included: larger messages go by rendezvous (default: " +
            LayoutParams.DEFAULT_EAGER_LIMIT + ", a 4 KiB message and its 16 bytes of headers).")
    Integer eagerLimit;

    @Option(names = "--eager-frags-per-peer", paramLabel = "N",
        description = "Eager fragments each sender owns per rank: N*n per sender; the RFC counts 2 " +
            "(default: 64/(n-1), at least 2 and at most 16).")
    Integer eagerFragsPerPeer;

    @Option(names = "--max-frag", paramLabel = "BYTES",
        description = "Bytes of one max-size fragment, header included (default: ${DEFAULT-VALUE}).")
    int maxFragSize = LayoutParams.DEFAULT_MAX_FRAG_SIZE;

    @Option(names = "--max-frags-per-rank", paramLabel = "N",
        description = "Max-size fragments each sender owns: the large-message pipeline's depth (default: ${DEFAULT-VALUE}).")
    int maxFragsPerRank = LayoutParams.DEFAULT_MAX_FRAGS_PER_RANK;

    /**
     * @return the {@code --eager-limit} given, else {@code otherwise}.
     */
    int eagerLimitOr(final int otherwise)
    {
        return eagerLimit == null ? otherwise : eagerLimit;
    }

    /**
     * Sets the sizes: the eager limit {@code defaultEagerLimit} unless {@code --eager-limit} was given, the eager
     * fragments per peer the builder's default for its ranks unless {@code --eager-frags-per-peer} was.
     */
    LayoutParams.Builder applyTo(final LayoutParams.Builder builder, final int defaultEagerLimit)
    {
        if (eagerFragsPerPeer != null)
        {
            builder.eagerFragsPerPeer(eagerFragsPerPeer);
        }
        return builder.eagerLimit(eagerLimitOr(defaultEagerLimit)).maxFragSize(maxFragSize).maxFragsPerRank(maxFragsPerRank);
    }
}
