package io.sm4j.window;

import io.sm4j.collective.Op;
import io.sm4j.it.ScratchDir;
import io.sm4j.message.ThreadJob;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Windows between ranks running as threads of this JVM, each with its own communicator over its own mapping
 * of a real segment, each part a real file mapped by every rank.
 */
@Timeout(120)
class WindowTest
{
    private static final int RANKS = 4;

    @Test
    void putsAndGetsShouldBeSeenByEveryRankAfterAFence() throws Exception
    {
        final AtomicReference<String> wrong = new AtomicReference<>();
        try (ScratchDir dir = ScratchDir.create("sm4j-rma-"))
        {
            ThreadJob.run(dir.path, RANKS, comm ->
            {
                try (Window window = comm.allocateWindow(RANKS * Long.BYTES))
                {
                    final UnsafeBuffer mine = new UnsafeBuffer(new byte[Long.BYTES]);
                    mine.putLong(0, 1000L + comm.rank());
                    for (int target = 0; target < RANKS; target++)
                    {
                        window.put(target, comm.rank() * Long.BYTES, mine, 0, Long.BYTES);
                    }
                    window.fence();
                    final UnsafeBuffer got = new UnsafeBuffer(new byte[RANKS * Long.BYTES]);
                    for (int target = 0; target < RANKS; target++)
                    {
                        window.get(target, 0, got, 0, RANKS * Long.BYTES);
                        for (int from = 0; from < RANKS; from++)
                        {
                            if (got.getLong(from * Long.BYTES) != 1000L + from || window.shared(target).getLong(from * Long.BYTES) != 1000L + from)
                            {
                                wrong.compareAndSet(null, "rank " + comm.rank() + " read rank " + target + "'s slot " + from);
                            }
                        }
                    }
                    window.fence();
                }
            });
            assertTrue(dir.isEmpty(), "every part's file went with the window");
        }
        assertEquals(null, wrong.get());
    }

    @Test
    void concurrentAccumulatesShouldLoseNoUpdate() throws Exception
    {
        final int rounds = 2000;
        final long[] seen = new long[6];
        final double[] sum = new double[1];
        try (ScratchDir dir = ScratchDir.create("sm4j-rma-"))
        {
            ThreadJob.run(dir.path, RANKS, comm ->
            {
                try (Window window = comm.allocateWindow(comm.rank() == 0 ? 6 * Long.BYTES : 0))
                {
                    if (comm.rank() == 0)
                    {
                        window.local().putLong(16, Long.MAX_VALUE);
                        window.local().putLong(24, Long.MIN_VALUE);
                    }
                    window.fence();
                    for (int i = 1; i <= rounds; i++)
                    {
                        window.accumulate(0, 0, new long[]{ i }, 0, 1, Op.SUM);
                        window.accumulate(0, 8, new double[]{ 0.5 }, 0, 1, Op.SUM);
                        final long value = comm.rank() * 1_000_000L + i;
                        window.accumulate(0, 16, new long[]{ value }, 0, 1, Op.MIN);
                        window.accumulate(0, 24, new long[]{ value }, 0, 1, Op.MAX);
                        window.accumulate(0, 32, new long[]{ 7, 1, 2 }, 1, 2, Op.SUM); // two elements, from offset 1
                    }
                    window.fence();
                    if (comm.rank() == 0)
                    {
                        final MutableDirectBuffer part = window.local();
                        seen[0] = part.getLong(0);
                        sum[0] = part.getDouble(8);
                        seen[2] = part.getLong(16);
                        seen[3] = part.getLong(24);
                        seen[4] = part.getLong(32);
                        seen[5] = part.getLong(40);
                    }
                    window.fence();
                }
            });
        }
        assertEquals((long)RANKS * rounds * (rounds + 1) / 2, seen[0], "long SUM");
        assertEquals(RANKS * rounds * 0.5, sum[0], "double SUM");
        assertEquals(1, seen[2], "MIN");
        assertEquals((RANKS - 1) * 1_000_000L + rounds, seen[3], "MAX");
        assertEquals((long)RANKS * rounds, seen[4], "first of two elements");
        assertEquals(2L * RANKS * rounds, seen[5], "second of two elements");
    }

    @Test
    void exclusiveLocksShouldSerialiseReadModifyWritesAndSharedOnesSeeNoTornPair() throws Exception
    {
        final int rounds = 300;
        final AtomicLong torn = new AtomicLong();
        final long[] counters = new long[RANKS];
        final AtomicLongArray increments = new AtomicLongArray(RANKS);
        try (ScratchDir dir = ScratchDir.create("sm4j-rma-"))
        {
            ThreadJob.run(dir.path, RANKS, comm ->
            {
                try (Window window = comm.allocateWindow(2 * Long.BYTES))
                {
                    final UnsafeBuffer pair = new UnsafeBuffer(new byte[2 * Long.BYTES]);
                    final ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int i = 0; i < rounds; i++)
                    {
                        final int target = random.nextInt(RANKS);
                        final boolean write = random.nextBoolean();
                        window.lock(target, write);
                        window.get(target, 0, pair, 0, 2 * Long.BYTES);
                        if (pair.getLong(0) != pair.getLong(8))
                        {
                            torn.incrementAndGet();
                        }
                        if (write)
                        {
                            pair.putLong(0, pair.getLong(0) + 1);
                            Thread.yield(); // another rank's lock, were it granted, would now lose this update
                            pair.putLong(8, pair.getLong(8) + 1);
                            window.put(target, 0, pair, 0, 2 * Long.BYTES);
                            window.flush(target);
                            increments.incrementAndGet(target);
                        }
                        window.unlock(target);
                    }
                    window.fence();
                    counters[comm.rank()] = window.local().getLong(0);
                    window.fence();
                }
            });
        }
        assertEquals(0, torn.get(), "no reader saw a half-written pair");
        for (int target = 0; target < RANKS; target++)
        {
            assertEquals(increments.get(target), counters[target], "rank " + target + "'s counter lost no increment");
        }
    }

    @Test
    void misuseShouldBeRefusedInOneLine() throws Exception
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-rma-"))
        {
            ThreadJob.run(dir.path, 2, comm ->
            {
                final Window window = comm.allocateWindow(comm.rank() == 0 ? 64 : 0);
                assertEquals(64, window.size(0));
                assertEquals(0, window.size(1));
                assertEquals("rank 1 has no part in this window (0 bytes): nothing to lock",
                    assertThrows(IllegalArgumentException.class, () -> window.lock(1, true)).getMessage());
                assertEquals("rank=2 (expected: 0..1)", assertThrows(IllegalArgumentException.class, () -> window.size(2)).getMessage());
                assertEquals("targetOffset=60, length=8 outside rank 0's part of 64 bytes",
                    assertThrows(IndexOutOfBoundsException.class, () -> window.put(0, 60, new UnsafeBuffer(new byte[8]), 0, 8)).getMessage());
                assertEquals("targetOffset=4 (expected: a multiple of 8 for accumulate)", assertThrows(IllegalArgumentException.class,
                    () -> window.accumulate(0, 4, new long[]{ 1 }, 0, 1, Op.SUM)).getMessage());
                assertEquals("op=PROD (expected: SUM, MIN or MAX for accumulate)", assertThrows(IllegalArgumentException.class,
                    () -> window.accumulate(0, 0, new long[]{ 1 }, 0, 1, Op.PROD)).getMessage());
                assertEquals("rank 0's part is not locked by this rank",
                    assertThrows(IllegalStateException.class, () -> window.unlock(0)).getMessage());
                if (comm.rank() == 1)
                {
                    window.lock(0, false);
                    assertEquals("rank 0's part is locked by this rank already",
                        assertThrows(IllegalStateException.class, () -> window.lock(0, true)).getMessage());
                    assertEquals("rank 0's part is still locked by this rank: unlock it first",
                        assertThrows(IllegalStateException.class, window::close).getMessage());
                    window.unlock(0);
                }
                window.close();
                assertEquals("this window is closed", assertThrows(IllegalStateException.class, () -> window.size(0)).getMessage());
                if (comm.rank() == 0)
                {
                    assertEquals("bytes=-1 (expected: 0..2,147,479,296)",
                        assertThrows(IllegalArgumentException.class, () -> comm.allocateWindow(-1)).getMessage());
                }
                else
                {
                    // a collective call: the other rank fails too, instead of waiting for rank 0 for good
                    assertEquals("rank 0 could not allocate its part of the window (-1 bytes): see its own error",
                        assertThrows(IllegalStateException.class, () -> comm.allocateWindow(64)).getMessage());
                }
            });
            assertTrue(dir.isEmpty());
        }
    }
    /**
     * Large puts and gets between shared buffers and parts, copied by both ranks (SplitCopy): at odd offsets
     * and lengths, in both directions at once, and with the target waiting in a receive (where it helps).
     */
    @Test
    void largePutsAndGetsFromSharedBuffersShouldCopyEveryByteWhoeverCopiesWhichChunk() throws Exception
    {
        final int length = SplitCopy.MIN + 12_345;
        final int rounds = 12;
        final AtomicReference<String> wrong = new AtomicReference<>();
        final AtomicLong helped = new AtomicLong();
        final AtomicLong opened = new AtomicLong();
        try (ScratchDir dir = ScratchDir.create("sm4j-rma-"))
        {
            ThreadJob.run(dir.path, 2, comm ->
            {
                final int peer = 1 - comm.rank();
                final SharedBuffer mine = comm.allocate(length + 7);
                try (Window window = comm.allocateWindow(length + 100))
                {
                    for (int round = 0; round < rounds; round++)
                    {
                        fill(mine, 7, length, round * 2 + comm.rank());
                        if (round % 2 == 0 || comm.rank() == 0)
                        {
                            window.put(peer, 100, mine, 7, length); // both at once, or rank 0 while rank 1 receives
                        }
                        if (round % 2 == 1)
                        {
                            if (comm.rank() == 0)
                            {
                                comm.send(1, round, new byte[1]);
                            }
                            else
                            {
                                comm.recv(0, round, new byte[1]);
                            }
                        }
                        window.fence();
                        final int from = round % 2 == 0 || comm.rank() == 1 ? round * 2 + peer : -1;
                        if (from >= 0)
                        {
                            check(window.local(), 100, length, from, "rank " + comm.rank() + "'s part, round " + round, wrong);
                        }
                        window.get(peer, 100, mine, 3, length);
                        // the peer's part holds this rank's put of this round, or (rank 1, odd rounds) of the last
                        final int put = round % 2 == 1 && comm.rank() == 1 ? round * 2 + 1 - 2 : round * 2 + comm.rank();
                        check(mine, 3, length, put, "rank " + comm.rank() + "'s get, round " + round, wrong);
                        window.fence();
                    }
                    opened.addAndGet(mine.header().getLong(io.sm4j.layout.WindowChunkDescriptor.HELP_CLAIM_OFFSET) >>> 32);
                }
                helped.addAndGet(comm.windowStats().helped());
                mine.free();
            });
            assertTrue(dir.isEmpty());
        }
        assertEquals(null, wrong.get());
        assertEquals(rounds * 2 + rounds / 2 + rounds, opened.get(), "every put and get took the split path");
        System.out.println("split copies: " + opened.get() + " opened, " + helped.get() + " chunks copied by targets");
    }

    private static void fill(final MutableDirectBuffer buffer, final int at, final int length, final int seed)
    {
        for (int i = 0; i < length; i++)
        {
            buffer.putByte(at + i, patternByte(seed, i));
        }
    }

    /**
     * Records in {@code wrong} the first byte of {@code buffer} at {@code at..+length} that is not round
     * {@code seed}'s pattern.
     */
    private static void check(
        final MutableDirectBuffer buffer, final int at, final int length, final int seed, final String what,
        final AtomicReference<String> wrong)
    {
        for (int i = 0; i < length; i++)
        {
            if (buffer.getByte(at + i) != patternByte(seed, i))
            {
                wrong.compareAndSet(null, what + ": byte " + i + " is not round " + seed + "'s");
                return;
            }
        }
    }

    private static byte patternByte(final int seed, final int i)
    {
        return (byte)(i * 7 + (i >>> 13) + seed * 31);
    }
}
