package io.sm4j.fifo;

import io.sm4j.layout.SegmentLayout;

/**
 * One rank's free list of its own max-size fragments, as segment offsets (LIFO, so the fragment most
 * recently returned, likely still in cache, is reused first). The large-message stream takes them for any
 * receiver, and receivers return them one by one. Not thread-safe: in MULTIPLE thread mode the caller locks.
 * (Eager fragments are per receiver and come back as credits: {@link EagerCredits}.)
 * <p>
 * Offsets handed back by peers are untrusted: {@link #release} accepts only a fragment this rank owns and
 * has handed out, so a corrupt or duplicated return is reported instead of corrupting the free list.
 */
public final class FragmentPool
{
    private final SegmentLayout layout;
    private final int owner;
    private final long[] free;
    private final boolean[] outstanding;
    private final long first;
    private final long stride;
    private int freeCount;

    public FragmentPool(final SegmentLayout layout, final int owner)
    {
        this.layout = layout;
        this.owner = owner;
        free = new long[layout.maxFragmentCount()];
        outstanding = new boolean[free.length];
        for (int i = free.length - 1; i >= 0; i--)
        {
            free[freeCount++] = layout.maxFragmentOffset(owner, i);
        }
        first = layout.maxFragmentOffset(owner, 0);
        stride = free.length > 1 ? layout.maxFragmentOffset(owner, 1) - first : 1;
    }

    /**
     * @return a free max-size fragment's offset, or -1 if none is free.
     */
    public long acquire()
    {
        if (freeCount == 0)
        {
            return -1;
        }
        final long offset = free[--freeCount];
        outstanding[index(offset)] = true;
        return offset;
    }

    /**
     * Takes back a fragment.
     *
     * @param offset untrusted offset returned by a peer.
     * @return false if {@code offset} is not an outstanding max-size fragment of this rank (nothing is changed).
     */
    public boolean release(final long offset)
    {
        if (layout.fragmentOwner(offset) != owner || layout.fragmentCapacity(offset) != layout.params().maxFragSize() ||
            offset < first)
        {
            return false;
        }
        final int index = index(offset);
        if (!outstanding[index])
        {
            return false;
        }
        outstanding[index] = false;
        free[freeCount++] = offset;
        return true;
    }

    private int index(final long offset)
    {
        return (int)((offset - first) / stride);
    }
}
