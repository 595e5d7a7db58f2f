package io.sm4j.window;

import io.sm4j.it.ScratchDir;
import io.sm4j.message.Communicator;
import io.sm4j.message.Request;
import io.sm4j.message.Status;
import io.sm4j.message.ThreadJob;
import io.sm4j.message.TruncationException;
import io.sm4j.segment.Sm4jException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Shared buffers and single-copy messages between ranks running as threads of this JVM, each with its own
 * communicator over its own mapping of a real segment, and real buffer files beside it.
 */
@Timeout(120)
class SharedBufferTest
{
    private static final int TAG = 3;
    private static final int LARGE = 1 << 20;
    /** The size from which a message into a shared buffer is copied by both ranks (Matcher.SPLIT_MIN). */
    private static final int SPLIT = 2 << 20;

    @Test
    void aLargeMessageFromASharedBufferShouldArriveWholeAndMapItsBufferOnce() throws Exception
    {
        final int messages = 200;
        final AtomicReference<WindowStats> stats = new AtomicReference<>();
        final boolean[] whole = new boolean[1];
        try (ScratchDir dir = ScratchDir.create("sm4j-win-"))
        {
            ThreadJob.run(dir.path, 2, comm ->
            {
                if (comm.rank() == 0)
                {
                    final SharedBuffer buffer = comm.allocate(LARGE);
                    assertTrue(Files.exists(dir.path.resolve(onlyWindowFile(dir))), "the buffer's file is beside the segment");
                    for (int i = 0; i < messages; i++)
                    {
                        buffer.setMemory(0, LARGE, (byte)i);
                        buffer.putInt(LARGE - 4, i);
                        comm.send(1, TAG, buffer, 0, LARGE);
                    }
                }
                else
                {
                    final byte[] into = new byte[LARGE];
                    boolean ok = true;
                    for (int i = 0; i < messages; i++)
                    {
                        final Status status = comm.recv(0, TAG, into);
                        ok &= status.length() == LARGE && into[0] == (byte)i && into[LARGE - 5] == (byte)i &&
                            java.nio.ByteBuffer.wrap(into).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt(LARGE - 4) == i;
                    }
                    whole[0] = ok;
                    stats.set(comm.windowStats());
                }
            });
            assertTrue(dir.isEmpty(), "the job's files, buffers included, are gone");
        }
        assertTrue(whole[0], "every message arrived whole, with the bytes of its own send");
        assertEquals(new WindowStats(messages - 1, 1, 0, 1, 0), stats.get(), "one mapping, paid once");
    }

    @Test
    void unexpectedHandlerTruncatedAndSubRangeMessagesShouldArriveFromASharedBuffer() throws Exception
    {
        final byte[] expected = pattern(LARGE);
        final AtomicReference<Throwable> truncation = new AtomicReference<>();
        final AtomicReference<WindowStats> stats = new AtomicReference<>();
        final byte[][] received = new byte[3][];
        try (ScratchDir dir = ScratchDir.create("sm4j-win-"))
        {
            ThreadJob.run(dir.path, 2, comm ->
            {
                if (comm.rank() == 0)
                {
                    final SharedBuffer buffer = comm.allocate(LARGE + 100);
                    buffer.putBytes(100, expected);
                    final Request early = comm.isend(1, TAG, buffer, 100, LARGE); // before the receive is posted
                    comm.barrier();
                    early.await();
                    comm.send(1, TAG, buffer, 100, LARGE); // to a handler
                    comm.send(1, TAG, buffer, 100, LARGE); // to a receive too small
                    buffer.wrap(buffer, 100, LARGE); // re-wrapped onto its own bytes: still shared
                    comm.send(1, TAG, buffer, 0, LARGE);
                    buffer.free();
                }
                else
                {
                    comm.barrier();
                    received[0] = new byte[LARGE];
                    comm.recv(0, TAG, received[0]);
                    comm.recv(0, TAG, (status, buffer, offset) ->
                    {
                        received[1] = new byte[status.length()];
                        buffer.getBytes(offset, received[1]);
                    });
                    truncation.set(assertThrows(TruncationException.class, () -> comm.recv(0, TAG, new byte[LARGE - 1])));
                    received[2] = new byte[LARGE];
                    comm.recv(0, TAG, received[2]);
                    stats.set(comm.windowStats());
                }
            });
            assertTrue(dir.isEmpty());
        }
        assertArrayEquals(expected, received[0], "queued as unexpected, then copied at the receive");
        assertArrayEquals(expected, received[1], "handed to a handler");
        assertArrayEquals(expected, received[2], "from a view re-wrapped onto the buffer's own bytes");
        assertTrue(truncation.get().getMessage().contains(String.valueOf(LARGE)), truncation.get().getMessage());
        assertEquals(new WindowStats(2, 1, 0, 1, 0), stats.get(), "three copies out of one mapping; none for the truncated");
    }

    @Test
    void aFreedAndReallocatedBufferShouldNeverBeReadThroughItsOldMapping() throws Exception
    {
        final AtomicReference<WindowStats> stats = new AtomicReference<>();
        final byte[][] received = new byte[2][LARGE];
        try (ScratchDir dir = ScratchDir.create("sm4j-win-"))
        {
            ThreadJob.run(dir.path, 2, comm ->
            {
                if (comm.rank() == 0)
                {
                    final SharedBuffer first = comm.allocate(LARGE);
                    first.setMemory(0, LARGE, (byte)1);
                    comm.send(1, TAG, first, 0, LARGE);
                    first.free();
                    assertEquals(0, first.capacity(), "a freed buffer has no bytes");
                    assertFalse(first.isLive());
                    final SharedBuffer second = comm.allocate(LARGE);
                    second.setMemory(0, LARGE, (byte)2);
                    comm.send(1, TAG, second, 0, LARGE);
                }
                else
                {
                    comm.recv(0, TAG, received[0]);
                    comm.recv(0, TAG, received[1]);
                    stats.set(comm.windowStats());
                }
            });
        }
        assertTrue(allEqual(received[0], (byte)1));
        assertTrue(allEqual(received[1], (byte)2), "the new buffer's bytes, not the freed one's");
        assertEquals(new WindowStats(0, 2, 1, 1, 0), stats.get(), "the freed buffer's mapping was dropped");
    }

    @Test
    void aBufferFreedWithItsSendPendingShouldFailTheReceiveInOneLineAndReleaseTheSend() throws Exception
    {
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final boolean[] sendDone = new boolean[1];
        try (ScratchDir dir = ScratchDir.create("sm4j-win-"))
        {
            ThreadJob.run(dir.path, 2, comm ->
            {
                if (comm.rank() == 0)
                {
                    final SharedBuffer buffer = comm.allocate(LARGE);
                    final Request send = comm.isend(1, TAG, buffer, 0, LARGE);
                    comm.barrier(); // the RGET is out
                    buffer.free(); // erroneous, as freeing any send buffer before its send completes
                    comm.barrier();
                    send.await();
                    sendDone[0] = true;
                }
                else
                {
                    comm.barrier();
                    comm.barrier();
                    failure.set(assertThrows(Sm4jException.class, () -> comm.recv(0, TAG, new byte[LARGE])));
                }
            });
        }
        assertTrue(sendDone[0], "the send completed");
        assertTrue(failure.get().getMessage().contains("rank 0's shared buffer 1 is gone"), failure.get().getMessage());
    }

    @Test
    void aBufferSentByAnotherRanksCommunicatorOrThroughADupShouldArriveWhole() throws Exception
    {
        final byte[] expected = pattern(LARGE);
        final byte[][] received = new byte[2][LARGE];
        final AtomicReference<SharedBuffer> rankTwos = new AtomicReference<>();
        final AtomicReference<WindowStats> stats = new AtomicReference<>();
        final AtomicReference<Status> probed = new AtomicReference<>();
        try (ScratchDir dir = ScratchDir.create("sm4j-win-"))
        {
            ThreadJob.run(dir.path, 3, comm ->
            {
                if (comm.rank() == 2)
                {
                    final SharedBuffer buffer = comm.allocate(LARGE);
                    buffer.putBytes(0, expected);
                    rankTwos.set(buffer);
                }
                comm.barrier();
                try (Communicator dup = comm.dup())
                {
                    if (comm.rank() == 0)
                    {
                        // rank 2's buffer, sent by rank 0: its chunk id means nothing as rank 0's, so it is copied
                        comm.send(1, TAG, rankTwos.get(), 0, LARGE);
                        final SharedBuffer own = comm.allocate(LARGE);
                        own.putBytes(0, expected);
                        dup.send(1, TAG, own, 0, LARGE);
                    }
                    else if (comm.rank() == 1)
                    {
                        comm.recv(0, TAG, received[0]);
                        probed.set(dup.probe(0, TAG));
                        dup.recv(0, TAG, received[1]);
                        stats.set(comm.windowStats());
                    }
                    comm.barrier();
                }
            });
            assertTrue(dir.isEmpty());
        }
        assertArrayEquals(expected, received[0], "another rank's buffer, copied");
        assertArrayEquals(expected, received[1], "single copy in a dup'd communicator");
        assertEquals(LARGE, probed.get().length(), "a probe sees a RGET's whole length");
        assertEquals(new WindowStats(0, 1, 0, 1, 0), stats.get(), "only rank 0's own buffer went single-copy");
    }

    @Test
    void aLargeMessageIntoASharedBufferShouldBeCopiedByBothRanksWhenEachHasACore() throws Exception
    {
        final int messages = 20;
        final boolean split = !io.sm4j.transport.TransportOptions.fromEnvironment(System.getenv()).startsContended(2);
        final boolean[] whole = new boolean[1];
        final AtomicReference<WindowStats> senderStats = new AtomicReference<>();
        try (ScratchDir dir = ScratchDir.create("sm4j-win-"))
        {
            ThreadJob.run(dir.path, 2, comm ->
            {
                final SharedBuffer buffer = comm.allocate(SPLIT + 64);
                if (comm.rank() == 0)
                {
                    for (int i = 0; i < messages; i++)
                    {
                        buffer.setMemory(0, SPLIT, (byte)i);
                        buffer.putInt(SPLIT - 4, i); // in the second half: the sender's part of a split
                        comm.send(1, TAG, buffer, 0, SPLIT);
                    }
                    comm.barrier();
                    senderStats.set(comm.windowStats());
                }
                else
                {
                    boolean ok = true;
                    for (int i = 0; i < messages; i++)
                    {
                        buffer.setMemory(0, SPLIT + 64, (byte)-1);
                        comm.recv(0, TAG, buffer, 64, SPLIT); // at an offset into the buffer
                        ok &= buffer.getByte(64) == (byte)i && buffer.getByte(64 + SPLIT / 2) == (byte)i &&
                            buffer.getInt(64 + SPLIT - 4) == i && buffer.getByte(63) == (byte)-1;
                    }
                    whole[0] = ok;
                    comm.barrier();
                }
            });
            assertTrue(dir.isEmpty());
        }
        assertTrue(whole[0], "every message whole, both halves, nothing written outside the receive");
        assertEquals(split ? 1 : 0, senderStats.get().misses(), "the sender mapped the receiver's buffer to copy its half");
    }

    @Test
    void aLargeHeapSendIntoASharedBufferShouldBePushedStraightIntoIt() throws Exception
    {
        final byte[] expected = pattern(LARGE);
        final boolean[] whole = new boolean[2];
        final AtomicReference<WindowStats> senderStats = new AtomicReference<>();
        try (ScratchDir dir = ScratchDir.create("sm4j-win-"))
        {
            ThreadJob.run(dir.path, 2, comm ->
            {
                if (comm.rank() == 0)
                {
                    final Request early = comm.isend(1, TAG, expected); // unexpected: its first chunk is kept
                    comm.barrier();
                    early.await();
                    comm.send(1, TAG, expected); // to a posted receive
                    comm.barrier();
                    senderStats.set(comm.windowStats());
                }
                else
                {
                    final SharedBuffer into = comm.allocate(LARGE + 32);
                    comm.barrier();
                    for (int i = 0; i < 2; i++)
                    {
                        into.setMemory(0, LARGE + 32, (byte)0);
                        comm.recv(0, TAG, into, 32, LARGE);
                        final byte[] got = new byte[LARGE];
                        into.getBytes(32, got);
                        whole[i] = java.util.Arrays.equals(expected, got) && into.getByte(31) == 0;
                    }
                    comm.barrier();
                }
            });
            assertTrue(dir.isEmpty());
        }
        assertTrue(whole[0], "an unexpected message, pushed after its first chunk");
        assertTrue(whole[1], "a message to a posted receive");
        assertEquals(new WindowStats(1, 1, 0, 1, 0), senderStats.get(), "the sender mapped the receiver's buffer once");
    }

    @Test
    void badAllocationsAndDoubleFreesShouldBeRefusedInOneLine() throws Exception
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-win-"))
        {
            ThreadJob.run(dir.path, 1, comm ->
            {
                assertEquals("bytes=0 (expected: 1..2,147,479,296)",
                    assertThrows(IllegalArgumentException.class, () -> comm.allocate(0)).getMessage());
                assertThrows(IllegalArgumentException.class, () -> comm.allocate(-1));
                final SharedBuffer buffer = comm.allocate(10);
                assertEquals(10, buffer.capacity());
                buffer.free();
                assertEquals("shared buffer 1 of rank 0 was freed already",
                    assertThrows(IllegalStateException.class, buffer::free).getMessage());
                comm.allocate(4096); // left for the close
            });
            assertTrue(dir.isEmpty(), "a buffer left allocated goes with the communicator's close");
        }
    }

    private static String onlyWindowFile(final ScratchDir dir) throws java.io.IOException
    {
        try (Stream<java.nio.file.Path> files = Files.list(dir.path))
        {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.contains(".win-")).findFirst().orElseThrow();
        }
    }

    private static byte[] pattern(final int length)
    {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++)
        {
            bytes[i] = (byte)(i * 31 + 7);
        }
        return bytes;
    }

    private static boolean allEqual(final byte[] bytes, final byte value)
    {
        final byte[] expected = new byte[bytes.length];
        Arrays.fill(expected, value);
        return Arrays.equals(expected, bytes);
    }
}
