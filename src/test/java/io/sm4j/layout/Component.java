package io.sm4j.layout;

/**
 * One component of a computed layout, for the property tests: where it is, how long, and which rank
 * writes it in steady state ({@link #NO_WRITER} for creator-only data, {@link #MANY_WRITERS} for queues,
 * doorbells and activity bitmaps, which are shared by design).
 */
record Component(String name, long offset, long length, long alignment, int writer)
{
    static final int NO_WRITER = -1;
    static final int MANY_WRITERS = -2;

    long end()
    {
        return offset + length;
    }
}
