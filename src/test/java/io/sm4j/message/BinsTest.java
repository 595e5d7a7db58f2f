package io.sm4j.message;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The matching queues keyed by (source, tag) against a plain map of queues: the remembered queue (looked up
 * without hashing, kept in the map while empty) must never change what a lookup, a take or a removal finds.
 */
class BinsTest
{
    @Test
    void aWindowOnOneKeyShouldComeOutInOrderWhileAnotherKeyInterleaves()
    {
        final Bins<Integer> bins = new Bins<>();
        for (int round = 0; round < 3; round++) // the remembered queue empties and fills again each round
        {
            for (int i = 0; i < 16; i++)
            {
                bins.add(1, 7, i);
            }
            bins.add(2, 7, 100 + round);
            for (int i = 0; i < 16; i++)
            {
                assertEquals(i, bins.peek(1, 7));
                bins.removeFirst(1, 7);
            }
            assertNull(bins.peek(1, 7), "an emptied queue that is still remembered holds nothing");
            assertEquals(100 + round, bins.peek(2, 7));
            bins.removeFirst(2, 7);
            assertNull(bins.peek(1, 7));
            assertNull(bins.peek(2, 7));
            assertEquals(0, bins.count());
        }
    }

    @Test
    void tagsUsedOnceEachShouldLeaveAtMostOneEmptyQueueInTheMap() throws ReflectiveOperationException
    {
        final Bins<Integer> bins = new Bins<>();
        for (int tag = 0; tag < 10_000; tag++)
        {
            bins.add(3, tag, tag);
            assertEquals(tag, bins.peek(3, tag));
            bins.removeFirst(3, tag);
        }
        final Field map = Bins.class.getDeclaredField("bins"); // the map itself: no accessor only a test would call
        map.setAccessible(true);
        assertTrue(((Map<?, ?>)map.get(bins)).size() <= 1, "queues left in the map: " + ((Map<?, ?>)map.get(bins)).size());
    }

    @Test
    void removeIfShouldForgetTheRememberedQueueIfItLeaves()
    {
        final Bins<Integer> bins = new Bins<>();
        bins.add(0, 1, 1);
        bins.add(0, 1, 2);
        bins.removeIf(e -> true); // the remembered queue is emptied and leaves the map
        assertNull(bins.peek(0, 1));
        bins.add(0, 1, 3); // must land in a queue the map holds, not in the one that left
        assertEquals(3, bins.peek(0, 1));
        assertEquals(1, bins.count());
        assertTrue(bins.remove(0, 1, 3));
        assertFalse(bins.remove(0, 1, 3));
        assertEquals(0, bins.count());
    }

    @Test
    void randomOperationsShouldFindWhatAPlainMapOfQueuesFinds()
    {
        final SplittableRandom random = new SplittableRandom(20261129);
        final Bins<Integer> bins = new Bins<>();
        final Map<Long, ArrayDeque<Integer>> model = new HashMap<>();
        int next = 0;
        for (int op = 0; op < 200_000; op++)
        {
            // few keys, so that the remembered one is hit, missed and emptied often
            final int source = random.nextInt(3);
            final int tag = random.nextInt(3) - 1;
            final long key = ((long)source << 32) | (tag & 0xFFFF_FFFFL);
            final ArrayDeque<Integer> queue = model.computeIfAbsent(key, k -> new ArrayDeque<>());
            switch (random.nextInt(10))
            {
                case 0, 1, 2, 3 ->
                {
                    final Integer entry = next++; // one object in both: a removal matches by identity
                    bins.add(source, tag, entry);
                    queue.add(entry);
                }
                case 4, 5, 6 ->
                {
                    if (!queue.isEmpty())
                    {
                        assertEquals(queue.peek(), bins.peek(source, tag));
                        bins.removeFirst(source, tag);
                        queue.poll();
                    }
                }
                case 7 ->
                {
                    final Integer entry = queue.isEmpty() ? Integer.valueOf(-1) : queue.toArray(new Integer[0])[random.nextInt(queue.size())];
                    assertEquals(queue.remove(entry), bins.remove(source, tag, entry));
                }
                case 8 -> assertEquals(queue.peek(), bins.peek(source, tag));
                default ->
                {
                    if (random.nextInt(100) == 0)
                    {
                        final int odd = random.nextInt(2);
                        bins.removeIf(e -> (e & 1) == odd);
                        model.values().forEach(q -> q.removeIf(e -> (e & 1) == odd));
                    }
                }
            }
            if (op % 1000 == 0)
            {
                assertEquals(model.values().stream().mapToInt(ArrayDeque::size).sum(), bins.count());
            }
        }
        for (final Map.Entry<Long, ArrayDeque<Integer>> entry : model.entrySet())
        {
            final int source = (int)(entry.getKey() >>> 32);
            final int tag = (int)(long)entry.getKey();
            assertEquals(entry.getValue().peek(), bins.peek(source, tag));
        }
    }
}
