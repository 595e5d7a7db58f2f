package io.sm4j.message;

import org.agrona.collections.Long2ObjectHashMap;

import java.util.ArrayDeque;
import java.util.function.Predicate;

/**
 * Queues keyed by (source, tag), each in arrival order, as ob1 keeps its matching queues per peer: finding
 * the head of one is O(1) however many entries wait. The last queue looked up is remembered with its key: a
 * window of messages on one (source, tag), which posts, matches and takes each of its entries on that key,
 * finds it without hashing (three hash lookups a message, with the queue operations around them, were over a
 * quarter of a window's time in one thread: docs/benchmarks.md, "Nineteenth session"). A queue stays in the
 * map while it is remembered, even empty; an empty one leaves when another key is remembered, and is kept for
 * the next key (up to {@link #SPARE_LIMIT}), so a steady exchange allocates nothing and an application that
 * uses many tags once each does not grow this without bound (at most one empty queue stays in the map).
 */
final class Bins<T>
{
    private static final int SPARE_LIMIT = 64;

    private final Long2ObjectHashMap<ArrayDeque<T>> bins = new Long2ObjectHashMap<>();
    private final ArrayDeque<ArrayDeque<T>> spare = new ArrayDeque<>();
    /** The queue last looked up or added, in the map, or null; and its key. */
    private ArrayDeque<T> lastBin;
    private long lastKey;

    /**
     * @return the earliest entry for ({@code source}, {@code tag}), or null.
     */
    T peek(final int source, final int tag)
    {
        final ArrayDeque<T> bin = bin(key(source, tag));
        return bin == null ? null : bin.peek();
    }

    void add(final int source, final int tag, final T entry)
    {
        final long key = key(source, tag);
        ArrayDeque<T> bin = bin(key);
        if (bin == null)
        {
            bin = spare.isEmpty() ? new ArrayDeque<>() : spare.pop();
            bins.put(key, bin);
            remember(key, bin);
        }
        bin.add(entry);
    }

    /**
     * Removes the earliest entry for ({@code source}, {@code tag}), which must exist.
     */
    void removeFirst(final int source, final int tag)
    {
        bin(key(source, tag)).poll(); // remembered now: it leaves the map, if empty, when another key is remembered
    }

    /**
     * Removes {@code entry} (identity) wherever it stands in its queue.
     *
     * @return true if it was there.
     */
    boolean remove(final int source, final int tag, final T entry)
    {
        final ArrayDeque<T> bin = bin(key(source, tag));
        return bin != null && bin.removeIf(e -> e == entry);
    }

    /**
     * Removes every entry {@code filter} accepts (a cold path: it allocates).
     */
    void removeIf(final Predicate<T> filter)
    {
        bins.values().forEach(bin -> bin.removeIf(filter));
        bins.values().removeIf(ArrayDeque::isEmpty);
        lastBin = null; // it may have left the map
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

    /**
     * @return the queue of {@code key}, or null: the remembered one without a lookup.
     */
    private ArrayDeque<T> bin(final long key)
    {
        if (lastBin != null && key == lastKey)
        {
            return lastBin;
        }
        final ArrayDeque<T> bin = bins.get(key);
        if (bin != null)
        {
            remember(key, bin);
        }
        return bin;
    }

    /**
     * Remembers {@code bin}, the queue of {@code key}, in place of the queue remembered so far (another key's),
     * which leaves the map if it is empty.
     */
    private void remember(final long key, final ArrayDeque<T> bin)
    {
        final ArrayDeque<T> previous = lastBin;
        if (previous != null && previous.isEmpty())
        {
            bins.remove(lastKey);
            if (spare.size() < SPARE_LIMIT)
            {
                spare.push(previous);
            }
        }
        lastBin = bin;
        lastKey = key;
    }

    private static long key(final int source, final int tag)
    {
        return ((long)source << 32) | (tag & 0xFFFF_FFFFL);
    }
}
