package io.sm4j.cli;

import io.sm4j.layout.LayoutParams;
import io.sm4j.layout.Policy;
import io.sm4j.layout.ThreadMode;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The layout parameters as command-line options, shared by every subcommand that sizes a segment.
 */
public final class LayoutOptions
{
    @Mixin
    PipelineOptions pipeline = new PipelineOptions();

    @Option(names = "--queue-entries", paramLabel = "N",
        description = "Slots per FIFO circular buffer, a power of two (default: ${DEFAULT-VALUE}).")
    int queueEntries = LayoutParams.DEFAULT_QUEUE_ENTRIES;

    @Option(names = "--cacheline", paramLabel = "BYTES",
        description = "Alignment against false sharing, a power of two; 128 covers x86's line pairs (default: ${DEFAULT-VALUE}).")
    int cacheline = LayoutParams.DEFAULT_CACHELINE;

    @Option(names = "--page-size", paramLabel = "BYTES",
        description = "Alignment of PAGE-policy allocations (default: ${DEFAULT-VALUE}).")
    int pageSize = LayoutParams.DEFAULT_PAGE_SIZE;

    @Option(names = "--thread-mode", paramLabel = "MODE",
        description = "single or multiple; multiple puts every head and tail on its own cacheline (default: single).")
    ThreadMode threadMode = ThreadMode.SINGLE;

    @Option(names = "--policy", paramLabel = "POLICY",
        description = "CB placement: page, cacheline or aggregated (default: aggregated).")
    Policy policy = Policy.AGGREGATED;

    @Option(names = "--fast-boxes", paramLabel = "N",
        description = "Fast boxes per receiver, claimed by the first senders that talk to it; 0 turns them off (default: ${DEFAULT-VALUE}).")
    int fastBoxes = LayoutParams.DEFAULT_FAST_BOXES;

    @Option(names = "--fast-box-size", paramLabel = "BYTES",
        description = "Bytes of one fast box's ring, a power of two (default: ${DEFAULT-VALUE}).")
    int fastBoxSize = LayoutParams.DEFAULT_FAST_BOX_SIZE;

    @Mixin
    CollectiveOptions collective = new CollectiveOptions();

    /**
     * @return the {@code --eager-limit} given, else {@code otherwise}.
     */
    public int eagerLimitOr(final int otherwise)
    {
        return pipeline.eagerLimitOr(otherwise);
    }

    /**
     * @param peers ranks on the node.
     * @return validated parameters.
     * @throws IllegalArgumentException naming the first invalid parameter.
     */
    public LayoutParams toParams(final int peers)
    {
        return toParams(peers, LayoutParams.DEFAULT_EAGER_LIMIT);
    }

    /**
     * As {@link #toParams(int)}, with {@code defaultEagerLimit} unless {@code --eager-limit} was given.
     */
    public LayoutParams toParams(final int peers, final int defaultEagerLimit)
    {
        return collective.applyTo(pipeline.applyTo(LayoutParams.builder(peers), defaultEagerLimit))
            .queueEntries(queueEntries)
            .cacheline(cacheline)
            .pageSize(pageSize)
            .threadMode(threadMode)
            .policy(policy)
            .fastBoxes(fastBoxes)
            .fastBoxSize(fastBoxSize)
            .build();
    }
}
