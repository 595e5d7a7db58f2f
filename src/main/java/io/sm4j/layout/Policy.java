package io.sm4j.layout;

/**
 * How the circular-buffer (CB) components of the FIFOs are placed in the segment.
 */
public enum Policy
{
    /** Every CB component its own page-aligned allocation, as Open MPI 1.3.0 did. */
    PAGE,
    /** The same separate allocations, aligned to the cacheline (RFC section 1). */
    CACHELINE,
    /** Per receiver, contiguous cacheline-aligned groups of components (RFC section 2). */
    AGGREGATED
}
