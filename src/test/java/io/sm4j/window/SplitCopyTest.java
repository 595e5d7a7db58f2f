package io.sm4j.window;

import io.sm4j.it.ScratchDir;
import io.sm4j.layout.WindowChunkDescriptor;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The split copy's protocol on plain off-heap memory: chunk sizes, a helper that takes every chunk, one that
 * comes late, one with another copy's sequence, and two threads copying one range at once.
 */
@Timeout(60)
class SplitCopyTest
{
    private final UnsafeBuffer header = new UnsafeBuffer(BufferUtil.allocateDirectAligned(WindowChunkDescriptor.PAYLOAD_OFFSET, 64));

    @Test
    void chunksShouldBeWholePagesAtLeastTheMinimumAndAtMost32()
    {
        for (final int length : new int[]{ SplitCopy.MIN, SplitCopy.MIN + 1, 3 * SplitCopy.MIN - 4095, Integer.MAX_VALUE - 8 })
        {
            final int chunk = SplitCopy.chunkBytes(length);
            assertEquals(0, chunk % 4096, "whole pages at " + length);
            assertTrue(chunk >= SplitCopy.CHUNK_MIN, "at least the minimum at " + length);
            final int chunks = SplitCopy.chunks(length, chunk);
            assertTrue(chunks <= SplitCopy.MAX_CHUNKS && (long)chunks * chunk >= length && (long)(chunks - 1) * chunk < length,
                chunks + " chunks of " + chunk + " for " + length);
        }
        assertEquals(2 * 1024 * 1024 / 32, SplitCopy.chunkBytes(2 * 1024 * 1024));
    }

    @Test
    void aHelperThatComesFirstShouldCopyEveryChunkAndTheOriginNone()
    {
        final int length = 5 * 1000 + 3;
        final UnsafeBuffer from = pattern(length, 7);
        final UnsafeBuffer to = new UnsafeBuffer(new byte[length + 20]);
        final long sequence = SplitCopy.open(header);
        assertFalse(SplitCopy.helped(header, sequence, 6, 0), "nothing copied yet");
        assertEquals(6, SplitCopy.help(header, sequence, to, 20, from, 0, length, 1000));
        assertEquals(0, SplitCopy.copyOwn(header, sequence, to, 20, from, 0, length, 1000), "none left for the origin");
        assertTrue(SplitCopy.helped(header, sequence, 6, 0));
        assertCopied(from, to, 20, length);
    }

    @Test
    void aLateHelperOrOneOfAnEarlierCopyShouldTakeNothing()
    {
        final int length = 4000;
        final UnsafeBuffer from = pattern(length, 3);
        final UnsafeBuffer to = new UnsafeBuffer(new byte[length]);
        final long first = SplitCopy.open(header);
        assertEquals(4, SplitCopy.copyOwn(header, first, to, 0, from, 0, length, 1000));
        assertTrue(SplitCopy.helped(header, first, 4, 4), "the origin took all: nothing to wait for");
        assertEquals(0, SplitCopy.help(header, first, to, 0, from, 0, length, 1000), "late: every chunk claimed");
        final long second = SplitCopy.open(header);
        assertEquals(first + 1, second);
        assertEquals(0, SplitCopy.help(header, first, to, 0, from, 0, length, 1000), "the earlier copy's request");
        assertFalse(SplitCopy.helped(header, second, 4, 0), "the earlier copy's count is not this one's");
        assertEquals(4, SplitCopy.copyOwn(header, second, to, 0, from, 0, length, 1000));
    }

    @Test
    void twoThreadsShouldCopyEveryChunkExactlyOnce() throws Exception
    {
        final int length = 32 * 4096 + 100;
        final int chunk = 4096;
        final int chunks = SplitCopy.chunks(length, chunk);
        for (int round = 0; round < 200; round++)
        {
            final UnsafeBuffer from = pattern(length, round);
            final UnsafeBuffer to = new UnsafeBuffer(BufferUtil.allocateDirectAligned(length, 64));
            final long sequence = SplitCopy.open(header);
            final AtomicInteger helperCopied = new AtomicInteger();
            final CountDownLatch start = new CountDownLatch(1);
            final Thread helper = new Thread(() ->
            {
                awaitQuietly(start);
                helperCopied.set(SplitCopy.help(header, sequence, to, 0, from, 0, length, chunk));
            });
            helper.start();
            start.countDown();
            final int own = SplitCopy.copyOwn(header, sequence, to, 0, from, 0, length, chunk);
            while (!SplitCopy.helped(header, sequence, chunks, own))
            {
                Thread.onSpinWait();
            }
            assertCopied(from, to, 0, length); // before the join: what helped() published is enough
            helper.join();
            assertEquals(chunks, own + helperCopied.get(), "round " + round + ": each chunk once");
        }
    }

    /**
     * The target's side through real buffer files, for a put and for a get at odd positions: a helper that
     * comes first takes every chunk, and each byte lands where the origin's request says.
     */
    @Test
    void aTargetShouldCopyEveryChunkOfAPutOrAGetBetweenTheFilesAtTheirPositions() throws Exception
    {
        final int length = SplitCopy.MIN + 5000;
        try (ScratchDir dir = ScratchDir.create("sm4j-split-");
            LocalWindows origin = new LocalWindows(dir.path.resolve("sm4j-split.seg"), 1);
            LocalWindows target = new LocalWindows(dir.path.resolve("sm4j-split.seg"), 0);
            PeerWindows originsBuffers = new PeerWindows(dir.path.resolve("sm4j-split.seg"), 2))
        {
            final SharedBuffer mine = origin.allocate(length + 7);
            final SharedBuffer part = target.allocate(length + 13);
            for (final boolean get : new boolean[]{ false, true })
            {
                final UnsafeBuffer from = pattern(length, get ? 2 : 1);
                (get ? part : mine).putBytes(get ? 13 : 7, from, 0, length);
                final long sequence = SplitCopy.open(mine.header());
                final int chunks = SplitCopy.chunks(length, SplitCopy.chunkBytes(length));
                assertEquals(chunks, originsBuffers.helpCopy(1, mine.chunkId(), 7, sequence, part, 13, length, get));
                assertTrue(SplitCopy.helped(mine.header(), sequence, chunks, 0), "the origin sees every chunk copied");
                assertEquals(0, SplitCopy.copyOwn(mine.header(), sequence, mine, 7, part, 13, length, SplitCopy.chunkBytes(length)));
                assertCopied(from, new UnsafeBuffer(get ? mine : part, get ? 7 : 13, length), 0, length);
            }
            assertEquals(2L * SplitCopy.chunks(length, SplitCopy.chunkBytes(length)), originsBuffers.stats().helped());
        }
    }

    private static UnsafeBuffer pattern(final int length, final int seed)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[length]);
        for (int i = 0; i < length; i++)
        {
            buffer.putByte(i, (byte)(i * 31 + seed));
        }
        return buffer;
    }

    private static void assertCopied(final UnsafeBuffer from, final UnsafeBuffer to, final int at, final int length)
    {
        for (int i = 0; i < length; i++)
        {
            if (from.getByte(i) != to.getByte(at + i))
            {
                assertEquals(from.getByte(i), to.getByte(at + i), "byte " + i);
            }
        }
    }

    private static void awaitQuietly(final CountDownLatch latch)
    {
        try
        {
            latch.await();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
