package io.sm4j.message;

import io.sm4j.it.ScratchDir;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;

import static io.sm4j.message.Communicator.ANY_SOURCE;
import static io.sm4j.message.Communicator.ANY_TAG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A blocking receive's looks at its source alone ({@link DirectReceive}) take the message the general path
 * would: what they decline (another tag, a message longer than the buffer) and what came before them (a
 * posted receive, a queued message) go the general way, in MPI's order. Rank 0's eager sends complete
 * before rank 1 receives (one thread drives both ranks), so each receive finds its source's path filled.
 */
@Timeout(60)
class DirectReceiveTest extends TwoCommunicators
{
    @Test
    void aReceiveOfAnotherTagShouldLeaveTheHeadToItsOwnReceive()
    {
        rank0.send(1, 1, bytes("first"));
        rank0.send(1, 2, bytes("second"));
        final byte[] in = new byte[16];
        final Status second = rank1.recv(0, 2, in);
        assertEquals("second", text(in, second));
        assertEquals(2, second.tag());
        final Status first = rank1.recv(0, 1, in);
        assertEquals("first", text(in, first));
        assertEquals(1, first.tag());
    }

    @Test
    void anyTagFromANamedSourceShouldTakeTheHeadAndNameItsTag()
    {
        rank0.send(1, 41, bytes("first"));
        rank0.send(1, 42, bytes("second"));
        final byte[] in = new byte[16];
        final Status first = rank1.recv(0, ANY_TAG, in);
        assertEquals("first", text(in, first));
        assertEquals(41, first.tag());
        final Status second = rank1.recv(0, ANY_TAG, in);
        assertEquals("second", text(in, second));
        assertEquals(42, second.tag());
    }

    @Test
    void aPostedReceiveShouldTakeTheFirstMessageBeforeABlockingOne()
    {
        final byte[] posted = new byte[16];
        final Request early = rank1.irecv(0, 5, posted);
        rank0.send(1, 5, bytes("one"));
        rank0.send(1, 5, bytes("two"));
        final byte[] in = new byte[16];
        assertEquals("two", text(in, rank1.recv(0, 5, in)));
        assertEquals("one", text(posted, early.await()));
    }

    @Test
    void aQueuedMessageShouldBeReceivedBeforeALaterOne()
    {
        rank0.send(1, 7, bytes("queued"));
        assertEquals(6, rank1.probe(0, 7).length()); // the probe's pass took it in: it waits on the heap
        rank0.send(1, 7, bytes("later"));
        final byte[] in = new byte[16];
        assertEquals("queued", text(in, rank1.recv(0, 7, in)));
        assertEquals("later", text(in, rank1.recv(0, 7, in)));
    }

    @Test
    void aMessageLongerThanTheBufferShouldFailAsTruncatedAndTheNextArrive()
    {
        rank0.send(1, 3, new byte[16]);
        rank0.send(1, 3, bytes("fits"));
        final TruncationException truncated = assertThrows(TruncationException.class, () -> rank1.recv(0, 3, new byte[8]));
        assertTrue(truncated.getMessage().contains("16"), truncated.getMessage());
        final byte[] in = new byte[8];
        assertEquals("fits", text(in, rank1.recv(0, 3, in)));
    }

    @Test
    void anEmptyMessageShouldArriveWithItsEnvelope()
    {
        rank0.send(1, 4, new byte[0]);
        final byte[] in = { 9, 9 };
        final Status status = rank1.recv(0, 4, in);
        assertEquals(0, status.length());
        assertEquals(0, status.source());
        assertEquals(4, status.tag());
        assertArrayEquals(new byte[]{ 9, 9 }, in, "nothing written");
    }

    @Test
    void aByteBufferReceiveShouldFillFromItsPositionAndMoveNothing()
    {
        for (final ByteBuffer buffer : new ByteBuffer[]{ ByteBuffer.allocate(16), ByteBuffer.allocateDirect(16) })
        {
            rank0.send(1, 6, bytes("bytes"));
            while (buffer.hasRemaining())
            {
                buffer.put((byte)'.');
            }
            buffer.position(3).limit(12);
            final Status status = rank1.recv(0, 6, buffer);
            assertEquals(5, status.length());
            assertEquals(0, status.source());
            assertEquals(6, status.tag());
            assertEquals(3, buffer.position(), "position");
            assertEquals(12, buffer.limit(), "limit");
            final byte[] got = new byte[16];
            buffer.clear().get(0, got);
            assertEquals("...bytes........", new String(got, StandardCharsets.US_ASCII), "written from the position on, nothing else");
        }
        rank0.send(1, 6, new byte[10]);
        assertThrows(TruncationException.class, () -> rank1.recv(0, 6, ByteBuffer.allocate(16).position(8)));
        assertEquals("buffer is read-only: a receive writes into it", assertThrows(IllegalArgumentException.class,
            () -> rank1.recv(0, 6, ByteBuffer.allocate(4).asReadOnlyBuffer())).getMessage());
        assertEquals("buffer is null", assertThrows(NullPointerException.class, () -> rank1.recv(0, 6, (ByteBuffer)null)).getMessage());
    }

    @Test
    void messagesOfOtherSourcesShouldWaitForTheirOwnReceives() throws Exception
    {
        inRanks(3, (comm, wrong) ->
        {
            final byte[] in = new byte[16];
            switch (comm.rank())
            {
                case 0 ->
                {
                    comm.barrier(); // rank 2's message was sent before it
                    expect(wrong, "from 1", in, comm.recv(1, 1, in));
                    expect(wrong, "from 2", in, comm.recv(ANY_SOURCE, 1, in));
                }
                case 1 ->
                {
                    comm.barrier();
                    comm.send(0, 1, bytes("from 1"));
                }
                default ->
                {
                    comm.send(0, 1, bytes("from 2"));
                    comm.barrier();
                }
            }
        });
    }

    @Test
    void aSplitCommunicatorsReceiveShouldNameItsOwnRankAndTag() throws Exception
    {
        inRanks(2, (comm, wrong) ->
        {
            try (Communicator reversed = comm.split(0, -comm.rank()))
            {
                final byte[] in = new byte[16];
                if (reversed.rank() == 0)
                {
                    reversed.send(1, 9, bytes("reversed"));
                    comm.send(0, 9, bytes("world")); // same pair and tag, another context
                    reversed.send(1, 18, bytes("split, head"));
                    comm.send(0, 5, bytes("world, any")); // at the head when the split's second wildcard receive looks
                    reversed.send(1, 17, bytes("split, any"));
                }
                else
                {
                    expect(wrong, "reversed", in, reversed.recv(0, 9, in), 0, 9); // the head: taken at once
                    expect(wrong, "world", in, comm.recv(1, 9, in), 1, 9);
                    expect(wrong, "split, head", in, reversed.recv(0, ANY_TAG, in), 0, 18); // taken at once, named
                    expect(wrong, "split, any", in, reversed.recv(0, ANY_TAG, in), 0, 17); // not another context's
                    expect(wrong, "world, any", in, comm.recv(1, ANY_TAG, in), 1, 5);
                }
            }
        });
    }

    @Test
    void messagesThroughTheFastBoxShouldArriveWholeAndInOrder()
    {
        // past the pair's first messages the sender claims a fast box: inline records, then references when full
        final ThreadLocalRandom random = ThreadLocalRandom.current();
        final byte[][] sent = new byte[4][];
        final int[] tags = new int[4];
        final byte[] in = new byte[4096];
        for (int batch = 0; batch < 500; batch++)
        {
            for (int i = 0; i < sent.length; i++)
            {
                sent[i] = new byte[random.nextInt(batch % 10 == 0 ? 4096 : 300)];
                random.nextBytes(sent[i]);
                tags[i] = random.nextInt(3);
                rank0.send(1, tags[i], sent[i]);
            }
            // mostly in send order (each at the head), now and then the last first (a head of another tag)
            final boolean lastFirst = batch % 7 == 0 && tags[3] != tags[0] && tags[3] != tags[1] && tags[3] != tags[2];
            if (lastFirst)
            {
                receive(3, sent, tags, in);
            }
            for (int i = 0; i < (lastFirst ? 3 : 4); i++)
            {
                receive(i, sent, tags, in);
            }
        }
    }

    @Test
    void aLargeMessageAtTheHeadShouldBeReceivedBeforeTheEagerOneBehindIt() throws Exception
    {
        inRanks(2, (comm, wrong) ->
        {
            final byte[] large = new byte[1 << 16];
            if (comm.rank() == 0)
            {
                java.util.Arrays.fill(large, (byte)7);
                final Request first = comm.isend(1, 5, large, 0, large.length);
                comm.send(1, 5, bytes("behind"));
                first.await();
            }
            else
            {
                final Status status = comm.recv(0, 5, large);
                if (status.length() != large.length || large[0] != 7 || large[large.length - 1] != 7)
                {
                    wrong.add("the large message arrived as " + status.length() + " bytes");
                }
                final byte[] in = new byte[16];
                expect(wrong, "behind", in, comm.recv(0, 5, in));
            }
        });
    }

    @Test
    void exchangesShouldSendEagerMessagesFirstAndReceiveInOrder() throws Exception
    {
        inRanks(2, (comm, wrong) ->
        {
            final int peer = 1 - comm.rank();
            final byte[] out = new byte[64];
            final byte[] in = new byte[1 << 16];
            // a receive posted before the exchange takes the first message: the exchange's receive the second
            final byte[] early = new byte[8];
            final Request posted = comm.irecv(peer, 2, early);
            comm.send(peer, 2, bytes("early"));
            for (int i = 0; i < 2_000; i++)
            {
                final int length = i % 100 == 99 ? in.length : 1 + i % 64; // now and then a large one: posted first
                final byte[] message = length > out.length ? new byte[length] : out;
                java.util.Arrays.fill(message, 0, length, (byte)(i + comm.rank()));
                final Status status = comm.sendRecv(peer, 2, message, 0, length, peer, 2, in, 0, in.length);
                if (status.length() != length || status.source() != peer || status.tag() != 2 ||
                    in[0] != (byte)(i + peer) || in[length - 1] != (byte)(i + peer))
                {
                    wrong.add("exchange " + i + " of rank " + comm.rank() + ": " + status.length() + " bytes from " + status.source());
                    return;
                }
            }
            final Status first = posted.await();
            if (!"early".equals(new String(early, 0, first.length(), StandardCharsets.US_ASCII)))
            {
                wrong.add("the receive posted first did not get the first message");
            }
            try (Communicator reversed = comm.split(0, -comm.rank())) // ranks and tags of its own
            {
                final int other = 1 - reversed.rank();
                final Status status = reversed.sendRecv(other, 7 + reversed.rank(), bytes("from " + reversed.rank()), other, ANY_TAG, in);
                expect(wrong, "from " + other, in, status, other, 7 + other);
            }
        });
    }

    /**
     * Runs {@code body} as the ranks of a job of {@code size} threads over a real segment; what they add to
     * {@code wrong} fails the test.
     */
    private static void inRanks(final int size, final RanksBody body) throws Exception
    {
        final ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
        try (ScratchDir dir = ScratchDir.create("sm4j-direct-"))
        {
            ThreadJob.run(dir.path, size, comm -> body.run(comm, wrong));
        }
        assertTrue(wrong.isEmpty(), wrong.toString());
    }

    @FunctionalInterface
    private interface RanksBody
    {
        void run(Communicator comm, ConcurrentLinkedQueue<String> wrong) throws Exception;
    }

    private void receive(final int i, final byte[][] sent, final int[] tags, final byte[] in)
    {
        final Status status = rank1.recv(0, tags[i], in);
        assertEquals(sent[i].length, status.length(), "length of message " + i);
        assertEquals(tags[i], status.tag());
        assertArrayEquals(sent[i], java.util.Arrays.copyOf(in, status.length()), "message " + i);
    }

    private static void expect(
        final ConcurrentLinkedQueue<String> wrong, final String text, final byte[] in, final Status status,
        final int source, final int tag)
    {
        expect(wrong, text, in, status);
        if (status.source() != source || status.tag() != tag)
        {
            wrong.add("'" + text + "' arrived with status " + status.source() + "/" + status.tag() + ", expected " + source + "/" + tag);
        }
    }

    private static void expect(final ConcurrentLinkedQueue<String> wrong, final String text, final byte[] in, final Status status)
    {
        final String got = text(in, status);
        if (!text.equals(got))
        {
            wrong.add("expected '" + text + "', received '" + got + "' from " + status.source());
        }
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    private static String text(final byte[] in, final Status status)
    {
        return new String(in, 0, status.length(), StandardCharsets.US_ASCII);
    }
}
