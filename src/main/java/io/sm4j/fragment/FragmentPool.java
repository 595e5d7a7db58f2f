package io.sm4j.fragment;

import io.sm4j.layout.SegmentLayout;

/**
 * One rank's free lists of its own eager and max-size fragments, as segment offsets (LIFO, so the
 * fragment most recently returned, likely still in cache, is reused first). Not thread-safe: in MULTIPLE
 * thread mode the caller locks.
 * <p>
 * Offsets handed back by peers are untrusted: {@link #release} accepts only a fragment this rank owns and
 * has handed out, so a corrupt or duplicated return is reported instead of corrupting the free list.
 */
public final class FragmentPool
{
    private final SegmentLayout layout;
    private final int owner;
    private final long[] eager;
    private final long[] max;
    private final boolean[] outstandingEager;
    private final boolean[] outstandingMax;
    private final long eagerFirst;
    private final long eagerStride;
    private final long maxFirst;
    private final long maxStride;
    private int eagerFree;
    private int maxFree;

    public FragmentPool(final SegmentLayout layout, final int owner)
    {
        this.layout = layout;
        this.owner = owner;
        eager = new long[layout.eagerFragmentCount()];
        max = new long[layout.maxFragmentCount()];
        outstandingEager = new boolean[eager.length];
        outstandingMax = new boolean[max.length];
        for (int i = eager.length - 1; i >= 0; i--)
        {
            eager[eagerFree++] = layout.eagerFragmentOffset(owner, i);
        }
        for (int i = max.length - 1; i >= 0; i--)
        {
            max[maxFree++] = layout.maxFragmentOffset(owner, i);
        }
        eagerFirst = layout.eagerFragmentOffset(owner, 0);
        eagerStride = eager.length > 1 ? layout.eagerFragmentOffset(owner, 1) - eagerFirst : 1;
        maxFirst = layout.maxFragmentOffset(owner, 0);
        maxStride = max.length > 1 ? layout.maxFragmentOffset(owner, 1) - maxFirst : 1;
    }

    /**
     * @return a free eager fragment's offset, or -1 if none is free.
     */
    public long acquireEager()
    {
        if (eagerFree == 0)
        {
            return -1;
        }
        final long offset = eager[--eagerFree];
        outstandingEager[eagerIndex(offset)] = true;
        return offset;
    }

    /**
     * @return a free max-size fragment's offset, or -1 if none is free.
     */
    public long acquireMax()
    {
        if (maxFree == 0)
        {
            return -1;
        }
        final long offset = max[--maxFree];
        outstandingMax[maxIndex(offset)] = true;
        return offset;
    }

    /**
     * Takes back a fragment.
     *
     * @param offset untrusted offset returned by a peer.
     * @return false if {@code offset} is not an outstanding fragment of this rank (nothing is changed).
     */
    public boolean release(final long offset)
    {
        if (layout.fragmentOwner(offset) != owner || layout.fragmentCapacity(offset) < 0)
        {
            return false;
        }
        if (offset < maxFirst)
        {
            final int index = eagerIndex(offset);
            if (!outstandingEager[index])
            {
                return false;
            }
            outstandingEager[index] = false;
            eager[eagerFree++] = offset;
            return true;
        }
        final int index = maxIndex(offset);
        if (!outstandingMax[index])
        {
            return false;
        }
        outstandingMax[index] = false;
        max[maxFree++] = offset;
        return true;
    }

    private int eagerIndex(final long offset)
    {
        return (int)((offset - eagerFirst) / eagerStride);
    }

    private int maxIndex(final long offset)
    {
        return (int)((offset - maxFirst) / maxStride);
    }
}
