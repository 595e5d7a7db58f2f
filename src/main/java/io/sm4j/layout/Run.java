package io.sm4j.layout;

/**
 * A run of {@code count} equal components inside a region: component {@code i} starts at
 * {@code align(start + i * stride)}. A packed run has a pre-aligned start and {@code align == 1}; a run of
 * separate aligned allocations reserves {@code stride = size + alignment} per component, as Open MPI's
 * {@code mpool_alloc} did, and the component sits at the first aligned address of its reservation.
 * Offsets are relative to the region's base, which is aligned to at least {@code align}.
 */
record Run(long start, int count, long stride, long align)
{
    long offset(final int index)
    {
        return Align.up(start + index * stride, align);
    }

    long end()
    {
        return start + count * stride;
    }
}
