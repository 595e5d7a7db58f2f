package io.sm4j.transport;

import io.sm4j.layout.LayoutParams;
import io.sm4j.segment.Segment;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Two endpoints of one segment in one JVM, for the API's contract and its bad-input errors (multi-process
 * behaviour is covered by the tests in io.sm4j.it).
 */
@Timeout(60)
class EndpointTest
{
    private TwoRanks ranks;
    private Segment segment;
    private Endpoint rank0;
    private Endpoint rank1;

    @BeforeEach
    void openTwoRanks() throws IOException
    {
        ranks = new TwoRanks(LayoutParams.builder(2).queueEntries(8).eagerFragsPerPeer(4).build());
        segment = ranks.segment;
        rank0 = ranks.rank0;
        rank1 = ranks.rank1;
    }

    @AfterEach
    void close() throws IOException
    {
        ranks.close();
    }

    @Test
    void shouldDeliverPayloadAndHeaderFieldsZeroCopy()
    {
        final byte[] payload = { 1, 2, 3, 4, 5 };
        rank0.send(1, 9, 42, 7L, 99L, new UnsafeBuffer(payload), 1, 3);
        rank0.send(1, ByteBuffer.wrap(new byte[]{ 8 }));
        final List<String> seen = new ArrayList<>();
        final byte[] copy = new byte[3];
        int delivered = 0;
        while (delivered < 2)
        {
            delivered += rank1.poll(f ->
            {
                if (f.length() == 3)
                {
                    f.buffer().getBytes(f.offset(), copy);
                }
                seen.add(f.source() + "/" + f.type() + "/" + f.tag() + "/" + f.sequence() + "/" + f.aux() + "/" + f.length());
            }, 10);
        }
        assertEquals(List.of("0/9/42/7/99/3", "0/0/0/0/0/1"), seen);
        assertArrayEquals(new byte[]{ 2, 3, 4 }, copy);
    }

    @Test
    void shouldRejectBadArgumentsBeforeTouchingSharedMemory()
    {
        final int max = rank0.maxPayload();
        assertEquals("length=" + (max + 1) + " exceeds maxPayload=" + max + " (eagerLimit=4096 less the 32-byte header)",
            assertThrows(IllegalArgumentException.class, () -> rank0.send(1, new byte[max + 1])).getMessage());
        assertEquals("dest=0 (expected: 0..1, not this rank 0)",
            assertThrows(IllegalArgumentException.class, () -> rank0.send(0, new byte[1])).getMessage());
        assertEquals("dest=2 (expected: 0..1, not this rank 0)",
            assertThrows(IllegalArgumentException.class, () -> rank0.send(2, new byte[1])).getMessage());
        assertThrows(NullPointerException.class, () -> rank0.send(1, (byte[])null));
        assertEquals("offset=2 length=5 capacity=4",
            assertThrows(IndexOutOfBoundsException.class, () -> rank0.send(1, new UnsafeBuffer(new byte[4]), 2, 5)).getMessage());
        assertEquals("rank=2 (expected: 0..1)",
            assertThrows(IllegalArgumentException.class, () -> Endpoint.open(segment, 2, TransportOptions.defaults(), false))
                .getMessage());
    }

    @Test
    void shouldKeepOrderWhenAHandlerSendsWithAnEmptyPool() throws Exception
    {
        // Rank 0 sends in bursts and polls only between bursts, so rank 1's echo inside its handler finds its
        // pool empty and drains re-entrantly, and the next burst lands right after: fragments parked by the
        // inner drain must not be overtaken by that burst.
        final int count = 3000;
        final java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        final CompletableFuture<String> echo = CompletableFuture.supplyAsync(() ->
        {
            final long[] next = { 0 };
            final String[] error = { null };
            final UnsafeBuffer reply = new UnsafeBuffer(new byte[8]);
            // Keeps progressing after the last receive: echoes still on the pending list go out only while
            // rank 1 polls (or closes).
            while (!done.get() && error[0] == null)
            {
                rank1.poll(f ->
                {
                    if (f.sequence() != next[0]++)
                    {
                        error[0] = "rank 1 got " + f.sequence() + ", expected " + (next[0] - 1);
                    }
                    reply.putLong(0, f.sequence());
                    rank1.send(0, 0, 0, f.sequence(), 0, reply, 0, 8);
                }, 4);
            }
            return error[0];
        });
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[16]);
        final long[] echoed = { 0 };
        final String[] error = { null };
        try
        {
            for (int i = 0; i < count; i++)
            {
                rank0.send(1, 0, 0, i, 0, payload, 0, 16);
                if (i % 20 == 19)
                {
                    rank0.poll(f -> check(f, echoed, error), 64);
                }
            }
            while (echoed[0] < count && error[0] == null && !echo.isDone())
            {
                rank0.poll(f -> check(f, echoed, error), 8);
            }
        }
        finally
        {
            done.set(true);
        }
        assertEquals(null, echo.get());
        assertEquals(null, error[0]);
        assertEquals(count, echoed[0]);
    }

    @Test
    void fragmentsParkedByAReentrantDrainShouldNotBeOvertaken()
    {
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[8]);
        for (int i = 0; i < rank1.layout().eagerFragmentCount(); i++)
        {
            rank1.send(0, 0, 0, 100 + i, 0, payload, 0, 8); // rank 0 does not poll: rank 1's pool is now empty
        }
        for (int i = 0; i < 4; i++)
        {
            rank0.send(1, 0, 0, i, 0, payload, 0, 8);
        }
        final List<Long> order = new ArrayList<>();
        final boolean[] first = { true };
        final FragmentHandler handler = f ->
        {
            order.add(f.sequence());
            if (first[0])
            {
                first[0] = false;
                // finds the pool empty, drains re-entrantly: fragments 1..3 are parked
                assertFalse(rank1.trySend(0, 0, 0, 999, 0, payload, 0, 8));
                rank0.send(1, 0, 0, 4, 0, payload, 0, 8); // lands while 1..3 wait in the backlog
            }
        };
        int delivered = 0;
        while (delivered < 5)
        {
            delivered += rank1.poll(handler, 10);
        }
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L), order);
    }

    private static void check(final FragmentView f, final long[] next, final String[] error)
    {
        if (f.sequence() != next[0] || f.buffer().getLong(f.offset()) != next[0])
        {
            error[0] = "rank 0 got echo " + f.sequence() + ", expected " + next[0];
        }
        next[0]++;
    }

    @Test
    void shouldRejectSendingAfterClose()
    {
        rank0.close();
        assertEquals("endpoint of rank 0 is closed",
            assertThrows(IllegalStateException.class, () -> rank0.send(1, new byte[1])).getMessage());
    }

    /**
     * A full FIFO parks fragments on the sender's pending list: ten sends into a 4-entry queue all return,
     * the receiver finds at most four in the FIFO, and the rest arrive, in order, once the sender's own
     * progress flushes its pending list.
     */
    @Test
    void sendsThatFindTheFifoFullShouldWaitOnThePendingListAndArriveInOrder() throws IOException
    {
        try (TwoRanks small = new TwoRanks(LayoutParams.builder(2).queueEntries(4).eagerFragsPerPeer(8).build()))
        {
            final UnsafeBuffer payload = new UnsafeBuffer(new byte[8]);
            for (int i = 0; i < 10; i++)
            {
                small.rank0.send(1, 0, 0, i, 0, payload, 0, 8);
            }
            final List<Long> received = new ArrayList<>();
            assertEquals(4, small.rank1.poll(f -> received.add(f.sequence()), 100), "only the FIFO's 4 entries are there");
            while (received.size() < 10)
            {
                small.rank0.poll(f -> { }, 16);
                small.rank1.poll(f -> received.add(f.sequence()), 100);
            }
            assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L), received);
        }
    }
}
