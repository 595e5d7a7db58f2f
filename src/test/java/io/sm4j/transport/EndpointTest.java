package io.sm4j.transport;

import io.sm4j.it.ScratchDir;
import io.sm4j.job.RankJob;
import io.sm4j.layout.CountersDescriptor;
import io.sm4j.layout.DoorbellDescriptor;
import io.sm4j.layout.FastBoxDescriptor;
import io.sm4j.layout.LayoutParams;
import io.sm4j.layout.ThreadMode;
import io.sm4j.segment.Segment;
import io.sm4j.segment.Sm4jException;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
    void shouldDeliverWhatAClaimWroteInPlaceAndNothingOfAnAbortedClaim()
    {
        final SendClaim claim = new SendClaim();
        assertEquals(Endpoint.CLAIMED, rank0.tryClaim(1, 3, claim));
        assertEquals(3, claim.buffer().capacity());
        claim.buffer().putBytes(0, new byte[]{ 2, 3, 4 });
        assertEquals("this claim still holds 3 bytes to rank 1: commit or abort it first",
            assertThrows(IllegalStateException.class, () -> rank0.tryClaim(1, 1, claim)).getMessage());
        claim.commit();
        assertFalse(claim.isClaimed());
        assertEquals(Endpoint.CLAIMED, rank0.tryClaim(1, 5, claim));
        claim.buffer().putBytes(0, new byte[]{ 9, 9, 9, 9, 9 });
        claim.abort();
        assertEquals("nothing claimed: commit and abort follow a successful tryClaim",
            assertThrows(IllegalStateException.class, claim::commit).getMessage());
        CopyingSends.send(rank0, 1, ByteBuffer.wrap(new byte[]{ 1, 8 }, 1, 1));
        final List<String> seen = new ArrayList<>();
        int delivered = 0;
        while (delivered < 2)
        {
            delivered += rank1.poll(f ->
            {
                final byte[] copy = new byte[f.length()];
                f.buffer().getBytes(f.offset(), copy);
                seen.add(f.source() + ":" + java.util.Arrays.toString(copy));
            }, 10);
        }
        assertEquals(List.of("0:[2, 3, 4]", "0:[8]"), seen);
        assertEquals(0, rank1.poll(f -> seen.add("more"), 10), "the aborted claim sent nothing");
    }

    /**
     * An aborted max-size claim puts its fragment back: with the whole pool claimed and aborted one by one,
     * a claim still finds a fragment.
     */
    @Test
    void anAbortedMaxClaimShouldGiveItsFragmentBack()
    {
        final SendClaim claim = new SendClaim();
        for (int i = 0; i < 2 * segment.layout().maxFragmentCount(); i++)
        {
            assertEquals(Endpoint.CLAIMED, rank0.tryClaimMax(1, rank0.maxFragmentPayload(), claim), "claim " + i);
            claim.abort();
        }
        assertEquals(0, rank1.poll(f -> { }, 10));
    }

    /**
     * A failed claim says why: out of eager credits and out of max-size fragments (MULTIPLE mode, where every
     * pair keeps the FIFO), a full fast box, and a destination that has left. The room comes back once the
     * receiver polls.
     */
    @Test
    void aFailedClaimShouldSayWhy() throws IOException
    {
        final SendClaim claim = new SendClaim();
        try (TwoRanks fifoOnly = new TwoRanks(LayoutParams.builder(2).threadMode(ThreadMode.MULTIPLE)
            .eagerFragsPerPeer(2).build()))
        {
            assertEquals(List.of(Endpoint.CLAIMED, Endpoint.CLAIMED, Endpoint.NO_CREDIT), claimAndCommitUntilRefused(
                () -> fifoOnly.rank0.tryClaim(1, 8, claim), claim));
            assertEquals(2, fifoOnly.rank1.poll(f -> { }, 10));
            assertEquals(Endpoint.CLAIMED, fifoOnly.rank0.tryClaim(1, 8, claim), "the receiver returned its credits");
            claim.abort();
            final List<Integer> max = claimAndCommitUntilRefused(() -> fifoOnly.rank0.tryClaimMax(1, 8, claim), claim);
            assertEquals(fifoOnly.segment.layout().maxFragmentCount() + 1, max.size());
            assertEquals(Endpoint.POOL_EMPTY, max.get(max.size() - 1));
        }
        final int credits = 16; // more than the references the full box holds
        try (TwoRanks boxed = new TwoRanks(LayoutParams.builder(2).eagerFragsPerPeer(credits)
            .fastBoxSize(LayoutParams.MIN_FAST_BOX_SIZE).build()))
        {
            for (int i = 0; i <= Publication.FAST_BOX_THRESHOLD; i++) // 16 by FIFO, then the pair has a box
            {
                assertEquals(Endpoint.CLAIMED, boxed.rank0.tryClaim(1, 8, claim));
                claim.commit();
                assertEquals(1, boxed.rank1.poll(f -> { }, 10));
            }
            final List<Integer> filled = claimAndCommitUntilRefused(() -> boxed.rank0.tryClaim(1, 8, claim), claim);
            assertEquals(Endpoint.BOX_FULL, filled.get(filled.size() - 1), "results " + filled);
            assertTrue(filled.size() - 1 < credits + 1024 / FastBoxDescriptor.inlineRecordLength(8),
                "records, then references while credits last: " + filled.size());
            boxed.rank1.close();
            assertEquals(Endpoint.PEER_GONE, boxed.rank0.tryClaim(1, 8, claim));
            assertFalse(claim.isClaimed());
            assertEquals("peer gone", Endpoint.describeClaim(Endpoint.PEER_GONE));
        }
    }

    /**
     * A poll returns the credits of every eager fragment it consumed by the end of its pass, also those short of
     * the half ring that is published at once: four fragments per peer, three consumed in one poll (the second
     * publishes two), and the sender has all four again.
     */
    @Test
    void aPollShouldReturnEveryCreditItConsumedByTheEndOfItsPass() throws IOException
    {
        final SendClaim claim = new SendClaim();
        try (TwoRanks pair = new TwoRanks(LayoutParams.builder(2).eagerFragsPerPeer(4).build()))
        {
            for (int i = 0; i < 3; i++)
            {
                CopyingSends.send(pair.rank0, 1, new byte[]{ (byte)i });
            }
            assertEquals(3, pair.rank1.poll(f -> { }, 10));
            assertEquals(List.of(Endpoint.CLAIMED, Endpoint.CLAIMED, Endpoint.CLAIMED, Endpoint.CLAIMED, Endpoint.NO_CREDIT),
                claimAndCommitUntilRefused(() -> pair.rank0.tryClaim(1, 8, claim), claim));
        }
    }

    /**
     * @return every claim's result, the last one the refusal.
     */
    private static List<Integer> claimAndCommitUntilRefused(final java.util.function.IntSupplier tryClaim, final SendClaim claim)
    {
        final List<Integer> results = new ArrayList<>();
        int result;
        do
        {
            result = tryClaim.getAsInt();
            results.add(result);
            if (result == Endpoint.CLAIMED)
            {
                claim.commit();
            }
        }
        while (result == Endpoint.CLAIMED && results.size() < 100_000);
        return results;
    }

    @Test
    void shouldRejectBadArgumentsBeforeTouchingSharedMemory()
    {
        final int max = rank0.maxPayload();
        assertEquals("length=" + (max + 1) + " exceeds maxPayload=" + max + " (eagerLimit=" + LayoutParams.DEFAULT_EAGER_LIMIT + " less the 8-byte header)",
            assertThrows(IllegalArgumentException.class, () -> CopyingSends.send(rank0, 1, new byte[max + 1])).getMessage());
        assertEquals("dest=0 (expected: 0..1, not this rank 0)",
            assertThrows(IllegalArgumentException.class, () -> CopyingSends.send(rank0, 0, new byte[1])).getMessage());
        assertEquals("dest=2 (expected: 0..1, not this rank 0)",
            assertThrows(IllegalArgumentException.class, () -> CopyingSends.send(rank0, 2, new byte[1])).getMessage());
        assertThrows(NullPointerException.class, () -> CopyingSends.send(rank0, 1, (byte[])null));
        assertEquals("offset=2 length=5 capacity=4",
            assertThrows(IndexOutOfBoundsException.class, () -> CopyingSends.send(rank0, 1, new UnsafeBuffer(new byte[4]), 2, 5)).getMessage());
        assertEquals("rank=2 (expected: 0..1)",
            assertThrows(IllegalArgumentException.class, () -> Endpoint.open(segment, 2, TransportOptions.defaults(), false))
                .getMessage());
    }

    @Test
    void shouldKeepOrderWhenAHandlerEchoesWithoutRoomAndDefers() throws Exception
    {
        // Rank 1 echoes from inside its handler with trySend; without credit it defers the echo (a handler
        // never waits). Rank 0 sends in bursts with trySend and polls when refused: every echo arrives, in order.
        final int count = 3000;
        final java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        final CompletableFuture<String> echo = CompletableFuture.supplyAsync(() ->
        {
            final long[] next = { 0 };
            final String[] error = { null };
            final org.agrona.collections.LongArrayQueue deferred = new org.agrona.collections.LongArrayQueue();
            final UnsafeBuffer reply = new UnsafeBuffer(new byte[8]);
            while (!done.get() && error[0] == null)
            {
                while (!deferred.isEmpty() && trySendLong(rank1, 0, deferred.peekLong(), reply))
                {
                    deferred.pollLong();
                }
                rank1.poll(f ->
                {
                    final long sequence = f.buffer().getLong(f.offset());
                    if (sequence != next[0]++)
                    {
                        error[0] = "rank 1 got " + sequence + ", expected " + (next[0] - 1);
                    }
                    if (!deferred.isEmpty() || !trySendLong(rank1, 0, sequence, reply))
                    {
                        deferred.addLong(sequence);
                    }
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
                payload.putLong(0, i);
                while (!CopyingSends.trySend(rank0, 1, payload, 0, 16))
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

    private static boolean trySendLong(final Endpoint from, final int dest, final long value, final UnsafeBuffer scratch)
    {
        scratch.putLong(0, value);
        return CopyingSends.trySend(from, dest, scratch, 0, 8);
    }

    /**
     * The aliasing bug of the re-entrant drain: a handler that sent (and found no credit) and then read its
     * fragment read another sender's. Sends never consume now, so the view still shows its own fragment.
     */
    @Test
    void aHandlerThatSendsShouldStillReadItsOwnFragment()
    {
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[8]);
        payload.putLong(0, 100);
        while (CopyingSends.trySend(rank1, 0, payload, 0, 8))
        {
            // rank 0 does not poll: rank 1 spends its credits for rank 0
        }
        for (int i = 0; i < 4; i++)
        {
            payload.putLong(0, i);
            CopyingSends.send(rank0, 1, payload, 0, 8);
        }
        final List<String> seen = new ArrayList<>();
        int delivered = 0;
        while (delivered < 4)
        {
            delivered += rank1.poll(f ->
            {
                final long before = f.buffer().getLong(f.offset());
                assertFalse(CopyingSends.trySend(rank1, 0, payload, 0, 8));
                seen.add(f.source() + "/" + before + "/" + f.buffer().getLong(f.offset()));
            }, 10);
        }
        assertEquals(List.of("0/0/0", "0/1/1", "0/2/2", "0/3/3"), seen);
    }

    /**
     * A message the receiver never declines reaches it past declined ones: declinable sends fill the pair's room
     * while the handler declines them, an urgent one still finds room (the fast box's reserve, or a max-size
     * fragment for the spent credits), and the next poll delivers what stands ahead of it, then it, in order.
     */
    @Test
    void anUrgentMessageShouldReachTheReceiverPastDeclinedOnes() throws IOException
    {
        final long urgent = GatedHandler.URGENT;
        for (final int boxes : new int[]{ LayoutParams.DEFAULT_FAST_BOXES, 0 })
        {
            try (TwoRanks pair = new TwoRanks(LayoutParams.builder(2).eagerFragsPerPeer(4).fastBoxes(boxes)
                .fastBoxSize(LayoutParams.MIN_FAST_BOX_SIZE).build()))
            {
                final SendClaim claim = new SendClaim();
                final GatedHandler handler = new GatedHandler();
                handler.open = true;
                final List<Long> order = handler.order;
                for (int i = 0; i <= Publication.FAST_BOX_THRESHOLD; i++) // past the FIFO's first messages: a box if any
                {
                    CopyingSends.send(pair.rank0, 1, new byte[8]);
                    assertEquals(1, pair.rank1.poll(handler, 10));
                }
                order.clear();
                handler.open = false;
                long sent = 0;
                int refused;
                while ((refused = pair.rank0.tryClaimDeclinable(1, 8, claim)) == Endpoint.CLAIMED)
                {
                    claim.buffer().putLong(0, sent++);
                    claim.commit();
                    assertEquals(0, pair.rank1.poll(handler, 100), "declined, and nothing behind must reach the receiver");
                }
                assertEquals(Endpoint.CLAIMED, pair.rank0.tryClaimUrgent(1, 8, claim),
                    boxes + " boxes: room for it after " + sent + " declined (" + Endpoint.describeClaim(refused) + ")");
                claim.buffer().putLong(0, urgent);
                claim.commit();
                if (boxes > 0)
                {
                    // one more behind it, in the box's last room: the same poll must leave it, declined
                    assertEquals(Endpoint.CLAIMED, pair.rank0.tryClaim(1, 8, claim));
                    claim.buffer().putLong(0, sent);
                    claim.commit();
                }
                for (int polls = 0; polls < 10 && !order.contains(urgent); polls++)
                {
                    pair.rank1.poll(handler, 100);
                }
                final List<Long> expected = new ArrayList<>();
                for (long i = 0; i < sent; i++)
                {
                    expected.add(i);
                }
                expected.add(urgent);
                assertEquals(expected, order, boxes + " boxes");
                if (boxes == 0)
                {
                    assertEquals(Endpoint.CLAIMED, pair.rank0.tryClaimDeclinable(1, 8, claim));
                    claim.buffer().putLong(0, sent);
                    claim.commit();
                }
                assertEquals(0, pair.rank1.poll(handler, 100), boxes + " boxes: a message after the urgent one waits");
                assertEquals(expected, order);
                pair.rank0.poll(f -> { }, 10); // takes back a max-size fragment the urgent message went in
                final List<Integer> max = claimAndCommitUntilRefused(() -> pair.rank0.tryClaimMax(1, 8, claim), claim);
                assertEquals(pair.segment.layout().maxFragmentCount() + 1, max.size(), boxes + " boxes: the whole pool again");
            }
        }
    }

    /**
     * A message its receiver may decline never takes a FIFO's last slot, not even as the fast box announcement a
     * claim makes at the pair's threshold: however often it retries, it is refused (QUEUE_FULL) and the slot stays for
     * a message that must not wait. Before, every retry counted towards the threshold, and the one past it announced
     * the box into the last slot: returns of the receiver's max-size fragments then waited in the sender's process.
     */
    @Test
    void aDeclinableClaimShouldNeverTakeTheFifosLastSlot() throws IOException
    {
        try (TwoRanks pair = new TwoRanks(LayoutParams.builder(2).queueEntries(4).eagerFragsPerPeer(8).build()))
        {
            final SendClaim claim = new SendClaim();
            final List<Integer> results = claimAndCommitUntilRefused(() -> pair.rank0.tryClaimDeclinable(1, 8, claim), claim);
            assertEquals(List.of(Endpoint.CLAIMED, Endpoint.CLAIMED, Endpoint.CLAIMED, Endpoint.QUEUE_FULL), results);
            for (int retry = 0; retry <= Publication.FAST_BOX_THRESHOLD; retry++)
            {
                assertEquals(Endpoint.QUEUE_FULL, pair.rank0.tryClaimDeclinable(1, 8, claim), "retry " + retry);
            }
            assertEquals(Endpoint.CLAIMED, pair.rank0.tryClaimUrgent(1, 8, claim), "the last slot");
            claim.commit();
            assertEquals("FIFO full", Endpoint.describeClaim(Endpoint.QUEUE_FULL));
        }
    }

    /**
     * A handler that declines leaves the message in shared memory: the sender runs out of credit
     * (back-pressure, nothing copied), and once the handler accepts, everything arrives in order.
     */
    @Test
    void aDeclinedMessageShouldStayAndHoldTheSenderBack()
    {
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[8]);
        final GatedHandler handler = new GatedHandler();
        final List<Long> order = handler.order;
        int sent = 0;
        while (CopyingSends.trySend(rank0, 1, payload, 0, 8))
        {
            payload.putLong(0, ++sent);
            assertEquals(0, rank1.poll(handler, 10));
        }
        assertEquals(segment.layout().params().eagerFragsPerPeer(), sent); // FIFO path: one credit per message
        handler.open = true;
        int delivered = 0;
        while (delivered < sent)
        {
            delivered += rank1.poll(handler, 10);
        }
        final List<Long> expected = new ArrayList<>();
        for (long i = 0; i < sent; i++)
        {
            expected.add(i);
        }
        assertEquals(expected, order);
    }

    /**
     * A fast box without room for one more record overflows into references to eager fragments while credits
     * last (a window does not wait on the receiver's next pass), and the pair's messages still arrive in order.
     */
    @Test
    void aFullFastBoxShouldOverflowIntoReferencesWhileCreditsLast() throws IOException
    {
        final int credits = 4;
        try (TwoRanks small = new TwoRanks(LayoutParams.builder(2).queueEntries(8).eagerFragsPerPeer(credits)
            .fastBoxSize(LayoutParams.MIN_FAST_BOX_SIZE).build()))
        {
            final List<Long> order = new ArrayList<>();
            final FragmentHandler handler = fragment -> order.add(fragment.buffer().getLong(fragment.offset()));
            final UnsafeBuffer payload = new UnsafeBuffer(new byte[96]);
            long sent = 0;
            for (int i = 0; i <= Publication.FAST_BOX_THRESHOLD; i++) // 16 by FIFO, then the pair has a box
            {
                payload.putLong(0, sent++);
                assertTrue(CopyingSends.trySend(small.rank0, 1, payload, 0, Long.BYTES));
                assertEquals(1, small.rank1.poll(handler, 10));
            }
            // the ring (1,024 bytes) now starts at 16: nine records of 104 bytes fit, the tenth would need 72
            // bytes of padding first, and the 88 bytes left hold the references
            payload.putLong(0, sent);
            while (CopyingSends.trySend(small.rank0, 1, payload, 0, payload.capacity()))
            {
                payload.putLong(0, ++sent);
            }
            final long fragments = small.segment.views().counters(0).getLong(CountersDescriptor.offset(CountersDescriptor.FIFO_SENDS));
            assertEquals(Publication.FAST_BOX_THRESHOLD + credits, fragments, "the FIFO's 16, then a reference per credit");
            assertEquals(Publication.FAST_BOX_THRESHOLD + 1 + 9 + credits, sent);
            while (order.size() < sent)
            {
                small.rank1.poll(handler, 100);
            }
            final List<Long> expected = new ArrayList<>();
            for (long i = 0; i < sent; i++)
            {
                expected.add(i);
            }
            assertEquals(expected, order);
            assertTrue(CopyingSends.trySend(small.rank0, 1, payload, 0, Long.BYTES), "room again once the receiver has taken them");
        }
    }

    /**
     * Fast boxes on and off: 5,000 messages of mixed sizes (inline records, references to eager fragments,
     * max-size fragments) through rings that wrap many times arrive intact and in send order, across the
     * switch from the FIFO to the fast box; with boxes on, the sender owns one of the receiver's boxes.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "fastBoxes={0}")
    @org.junit.jupiter.params.provider.ValueSource(ints = { 0, 8 })
    void messagesShouldKeepTheirOrderAcrossTheSwitchToAFastBox(final int fastBoxes) throws IOException
    {
        final LayoutParams params = LayoutParams.builder(2).fastBoxes(fastBoxes).fastBoxSize(1024).build();
        try (TwoRanks two = new TwoRanks(params))
        {
            // 8 bytes of sequence, then 0 .. maxPayload - 8 bytes (up to maxPayload) and a max-size one
            final int[] sizes = { 0, 8, 60, 64, 96, 200, 1000, two.rank0.maxPayload() - Long.BYTES, 10_000 };
            final int count = 5000;
            final UnsafeBuffer payload = new UnsafeBuffer(new byte[10_000]);
            final SendClaim claim = new SendClaim();
            final long[] next = { 0 };
            final String[] error = { null };
            final FragmentHandler check = f ->
            {
                final int size = sizes[(int)(next[0] % sizes.length)];
                final long sequence = f.buffer().getLong(f.offset());
                if (sequence != next[0] || f.length() != Long.BYTES + size)
                {
                    error[0] = "got " + sequence + "/" + f.length() + ", expected " + next[0] + "/" + (Long.BYTES + size);
                }
                for (int j = 0; j < size && error[0] == null; j++)
                {
                    if (f.buffer().getByte(f.offset() + Long.BYTES + j) != (byte)(next[0] + j))
                    {
                        error[0] = "message " + next[0] + ": byte " + j + " corrupt";
                    }
                }
                next[0]++;
            };
            for (int i = 0; i < count && error[0] == null; i++)
            {
                final int size = sizes[i % sizes.length];
                for (int j = 0; j < size; j++)
                {
                    payload.putByte(j, (byte)(i + j));
                }
                final int length = Long.BYTES + size;
                while ((length > two.rank0.maxPayload() ?
                    two.rank0.tryClaimMax(1, length, claim) : two.rank0.tryClaim(1, length, claim)) != Endpoint.CLAIMED)
                {
                    two.rank1.poll(check, 3);
                    two.rank0.poll(f -> { }, 8); // takes back max-size fragments
                }
                claim.buffer().putLong(0, i);
                claim.buffer().putBytes(Long.BYTES, payload, 0, size);
                claim.commit();
            }
            while (next[0] < count && error[0] == null)
            {
                two.rank1.poll(check, 16);
            }
            assertEquals(null, error[0]);
            if (fastBoxes > 0)
            {
                assertEquals(1, two.segment.views().fastBoxOwners(1).getIntVolatile(0),
                    "rank 0 + 1 owns rank 1's first fast box");
            }
        }
    }

    private static void check(final FragmentView f, final long[] next, final String[] error)
    {
        if (f.buffer().getLong(f.offset()) != next[0])
        {
            error[0] = "rank 0 got echo " + f.buffer().getLong(f.offset()) + ", expected " + next[0];
        }
        next[0]++;
    }

    /**
     * A close from another thread (a shutdown hook) while the rank's thread is inside a poll whose handler runs for
     * longer than the close waits (1 s): the close returns, and leaves the mapping to the call still inside, which
     * then finishes its poll in it (before: the close unmapped the file under the handler, and the poll's next
     * access crashed the JVM).
     */
    @Test
    void aCloseThatGivesUpWaitingShouldNotUnmapUnderTheCallInside() throws Exception
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-endpoint-"))
        {
            final Segment created = Segment.create(LayoutParams.defaults(2), dir.path, 12);
            final CompletableFuture<Endpoint> owner = CompletableFuture.supplyAsync(() ->
                Endpoint.open(Segment.attach(created.path(), Duration.ofSeconds(10)), 1, TransportOptions.defaults(), true));
            final Endpoint sender = Endpoint.open(created, 0, TransportOptions.defaults(), false);
            final Endpoint receiver = owner.join(); // owns its own mapping of the file: its close unmaps it
            try
            {
                CopyingSends.send(sender, 1, new byte[]{ 42 });
                final CountDownLatch inside = new CountDownLatch(1);
                final CountDownLatch release = new CountDownLatch(1);
                final byte[] seen = new byte[1];
                final CompletableFuture<Integer> poll = CompletableFuture.supplyAsync(() -> receiver.poll(fragment ->
                {
                    inside.countDown();
                    try
                    {
                        release.await(); // the handler outlasts the close's wait
                    }
                    catch (final InterruptedException ex)
                    {
                        Thread.currentThread().interrupt();
                    }
                    seen[0] = fragment.buffer().getByte(fragment.offset()); // read after the close returned
                }, 1));
                inside.await();
                receiver.close();
                release.countDown();
                assertEquals(1, poll.get(30, TimeUnit.SECONDS));
                assertEquals(42, seen[0], "the payload, read in the mapping after the close");
            }
            finally
            {
                sender.close();
                created.close();
            }
        }
    }

    /**
     * A process that asks for a rank already attached is refused before it writes anything of that rank's: the live
     * rank's doorbell abilities (its futex and peer-reads bits, and what its reads check found) stay as they were.
     */
    @Test
    void aRankRefusedAsAlreadyAttachedShouldLeaveTheLiveRanksDoorbellAlone()
    {
        final UnsafeBuffer bell = segment.views().bell(1);
        final long abilities = bell.getLongVolatile(DoorbellDescriptor.ABILITIES_OFFSET);
        final long address = bell.getLongVolatile(DoorbellDescriptor.ADDRESS_OFFSET);
        bell.putLongVolatile(DoorbellDescriptor.ADDRESS_OFFSET, address ^ 1); // what a stray would reset
        final Sm4jException refused = assertThrows(Sm4jException.class,
            () -> Endpoint.open(segment, 1, TransportOptions.defaults(), false));
        assertTrue(refused.getMessage().startsWith("rank 1 is already attached"), refused.getMessage());
        assertEquals(abilities, bell.getLongVolatile(DoorbellDescriptor.ABILITIES_OFFSET));
        assertEquals(address ^ 1, bell.getLongVolatile(DoorbellDescriptor.ADDRESS_OFFSET), "overwritten");
        bell.putLongVolatile(DoorbellDescriptor.ADDRESS_OFFSET, address);
    }

    /**
     * A second claim to a rank while this thread's first is still open is refused: it would get the same room (the
     * same eager slot or fast box index), and the two commits would publish one slot twice; the first claim stays
     * good.
     */
    @Test
    void aSecondOpenClaimToTheSameRankShouldBeRefused()
    {
        final SendClaim first = new SendClaim();
        final SendClaim second = new SendClaim();
        assertEquals(Endpoint.CLAIMED, rank0.tryClaim(1, 8, first));
        assertEquals("a claim to rank 1 is still open: commit or abort it first",
            assertThrows(IllegalStateException.class, () -> rank0.tryClaim(1, 8, second)).getMessage());
        first.commit();
        assertEquals(Endpoint.CLAIMED, rank0.tryClaim(1, 8, second));
        second.abort();
        assertEquals(1, rank1.poll(f -> { }, 10), "the first claim's message, once");
    }

    @Test
    void shouldRejectSendingAfterClose()
    {
        rank0.close();
        assertEquals("endpoint of rank 0 is closed",
            assertThrows(IllegalStateException.class, () -> CopyingSends.send(rank0, 1, new byte[1])).getMessage());
    }

    /**
     * The job's calls ({@link io.sm4j.job.RankJob}) pass the endpoint's gate: once it is closed they are
     * refused with the endpoint's own line and record nothing, and a second close returns at once.
     */
    @Test
    void theJobShouldRefuseEveryCallOnceItsEndpointIsClosed()
    {
        final RankJob job = rank0.job();
        assertTrue(job.isAttached(1));
        rank0.close();
        for (final Executable call : List.<Executable>of(
            () -> job.isAttached(1), job::checkNotAborted, () -> job.abort("too late"), () -> job.peerGone(1)))
        {
            assertEquals("endpoint of rank 0 is closed", assertThrows(IllegalStateException.class, call).getMessage());
        }
        rank0.close();
        rank1.job().checkNotAborted(); // the refused abort recorded nothing
        assertFalse(rank1.job().isAttached(0), "rank 0 detached at its close");
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
                payload.putLong(0, i);
                CopyingSends.send(small.rank0, 1, payload, 0, 8);
            }
            final List<Long> received = new ArrayList<>();
            assertEquals(4, small.rank1.poll(f -> received.add(f.buffer().getLong(f.offset())), 100), "only the FIFO's 4 entries are there");
            while (received.size() < 10)
            {
                small.rank0.poll(f -> { }, 16);
                small.rank1.poll(f -> received.add(f.buffer().getLong(f.offset())), 100);
            }
            assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L), received);
        }
    }

    /**
     * Whether a wait may look at one path alone before it idles (a blocking receive's first looks): where it
     * spins first, that is SPIN and BLOCK, and AUTO where every rank has a core of its own; never in YIELD.
     */
    @Test
    void waitsShouldSpinFirstUnlessToldToYieldOrRanksMayShareCores() throws IOException
    {
        assertSpinsFirst(TransportOptions.Idle.SPIN, true);
        assertSpinsFirst(TransportOptions.Idle.BLOCK, true);
        assertSpinsFirst(TransportOptions.Idle.YIELD, false);
        assertSpinsFirst(TransportOptions.Idle.AUTO, !TransportOptions.defaults().startsContended(2));
    }

    private static void assertSpinsFirst(final TransportOptions.Idle idle, final boolean expected) throws IOException
    {
        try (TwoRanks two = new TwoRanks(LayoutParams.defaults(2), TransportOptions.defaults().withIdle(idle)))
        {
            assertEquals(expected, two.rank1.spinsFirst(), idle.name());
        }
    }

    /**
     * Records the first long of each message it takes. While closed it declines every message but an urgent one
     * ({@link #URGENT}), which must not wait behind them, and takes what stands ahead of such a message.
     */
    private static final class GatedHandler implements FragmentHandler
    {
        static final long URGENT = -1;
        final List<Long> order = new ArrayList<>();
        boolean open;

        @Override
        public void onFragment(final FragmentView fragment)
        {
            order.add(fragment.buffer().getLong(fragment.offset()));
        }

        @Override
        public boolean accepts(final FragmentView fragment)
        {
            return open || mustNotWait(fragment);
        }

        @Override
        public boolean mustNotWait(final FragmentView fragment)
        {
            return fragment.buffer().getLong(fragment.offset()) == URGENT;
        }

        @Override
        public boolean acceptsAhead(final FragmentView fragment)
        {
            return true;
        }
    }
}
