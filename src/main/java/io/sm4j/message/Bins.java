package io.sm4j.message;

import org.agrona.collections.Long2ObjectHashMap;

import java.util.ArrayDeque;
import java.util.function.Predicate;

/**
 * Queues keyed by (source, tag), each in arrival order, as ob1 keeps its matching queues per peer: finding
 * the head of one is O(1) however many entries wait. A queue that empties leaves the map and is kept for the
 * next key (up to {@link #SPARE_LIMIT}), so a steady exchange allocates nothing and an application that uses
 * many tags once each does not grow this without bound.
 */
final class Bins<T>
{
    private static final int SPARE_LIMIT = 64;

    private final Long2ObjectHashMap<ArrayDeque<T>> bins = new Long2ObjectHashMap<>();
    private final ArrayDeque<ArrayDeque<T>> spare = new ArrayDeque<>();

    /**
     * @return the earliest entry for ({@code source}, {@code tag}), or null.
     */
    T peek(final int source, final int tag)
    {
        final ArrayDeque<T> bin = bins.get(key(source, tag));
        return bin == null ? null : bin.peek();
    }

    void add(final int source, final int tag, final T entry)
    {
        final long key = key(source, tag);
        ArrayDeque<T> bin = bins.get(key);
        if (bin == null)
        {
            bin = spare.isEmpty() ? new ArrayDeque<>() : spare.pop();
            bins.put(key, bin);
        }
        bin.add(entry);
    }

    /**
     * Removes the earliest entry for ({@code source}, {@code tag}), which must exist.
     */
    void removeFirst(final int source, final int tag)
    {
        final long key = key(source, tag);
        final ArrayDeque<T> bin = bins.get(key);
        bin.poll();
        retireIfEmpty(key, bin);
    }

    /**
     * Removes {@code entry} (identity) wherever it stands in its queue.
     *
     * @return true if it was there.
     */
    boolean remove(final int source, final int tag, final T entry)
    {
        final long key = key(source, tag);
        final ArrayDeque<T> bin = bins.get(key);
        if (bin == null || !bin.removeIf(e -> e == entry))
        {
            return false;
        }
        retireIfEmpty(key, bin);
        return true;
    }

    /**
     * Removes every entry {@code filter} accepts (a cold path: it allocates).
     */
    void removeIf(final Predicate<T> filter)
    {
        bins.values().forEach(bin -> bin.removeIf(filter));
        bins.values().removeIf(ArrayDeque::isEmpty);
    }

    /**
     * @return entries in every queue (a cold path: it visits every key).
     */
    int count()
    {
        int count = 0;
        for (final ArrayDeque<T> bin : bins.values())
        {
            count += bin.size();
        }
        return count;
    }

    private void retireIfEmpty(final long key, final ArrayDeque<T> bin)
    {
        if (bin.isEmpty())
        {
            bins.remove(key);
            if (spare.size() < SPARE_LIMIT)
            {
                spare.push(bin);
            }
        }
    }

    private static long key(final int source, final int tag)
    {
        return ((long)source << 32) | (tag & 0xFFFF_FFFFL);
    }
}
