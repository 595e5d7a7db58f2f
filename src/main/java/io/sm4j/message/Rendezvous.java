package io.sm4j.message;

import io.sm4j.job.RankCounters;
import io.sm4j.segment.JobAbortedException;
import io.sm4j.segment.Sm4jException;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.collections.LongHashSet;

import java.util.ArrayDeque;
import java.util.List;

import static io.sm4j.message.MessageType.COPIED;
import static io.sm4j.message.MessageType.DISCARD;
import static io.sm4j.message.MessageType.FROM_START;
import static io.sm4j.message.MessageType.STREAMED_BY_CHOICE;
import static io.sm4j.message.MessageType.PUSHED;

/**
 * The large-message protocol's state at one rank: sends waiting for their receiver's ACK, acknowledged
 * sends streaming max-size fragments, and matched receives being filled. The RNDV fragment and the
 * matching itself belong to the {@link Communicator}.
 */
final class Rendezvous
{
    private final MessageSender sender;
    private final RankCounters counters;
    private final int size;
    private final int chunk;
    private final Long2ObjectHashMap<SendRequest> awaitingAck = new Long2ObjectHashMap<>();
    private final ArrayDeque<SendRequest> streaming = new ArrayDeque<>();
    private final Long2ObjectHashMap<RecvRequest> activeReceives = new Long2ObjectHashMap<>();
    /** Receives abandoned with a PUSHED still to come ({@link #abandon}). */
    private final LongHashSet abandoned = new LongHashSet();
    private long nextReceiveId = 1;
    /**
     * Ranks that answered a RGET of process memory by asking for it streamed because they cannot read it: they do
     * not read this one (a rank that chose the stream for one message, {@code STREAMED_BY_CHOICE}, is not among them).
     */
    private final boolean[] noReads;

    Rendezvous(final MessageSender sender, final RankCounters counters, final int size)
    {
        this.sender = sender;
        this.counters = counters;
        this.size = size;
        this.chunk = sender.fragPayload();
        this.noReads = new boolean[size];
    }

    /**
     * @return true if {@code dest} may read a large message out of this process: it has not refused one (a
     *         refusal is taken as for good: a rank that may not read its peer, or is told not to, never will).
     */
    boolean reads(final int dest)
    {
        return !noReads[dest];
    }

    /** A send whose RNDV fragment has left waits for the receiver's ACK. */
    void awaitAck(final SendRequest request)
    {
        awaitingAck.put(ackKey(request.dest, request.sequence), request);
    }

    /**
     * A receive matched to a RNDV fragment waits for the rest of the message.
     *
     * @return the id the sender puts in every FRAG fragment.
     */
    long accept(final RecvRequest request)
    {
        final long id = nextReceiveId++;
        activeReceives.put(id, request);
        return id;
    }

    /**
     * Forgets a receive accepted for a push whose PUSH could not be sent.
     */
    void cancel(final long id)
    {
        activeReceives.remove(id);
    }

    /**
     * Forgets a receive whose PUSH was sent but which failed itself (the sender's buffer was gone): the
     * sender's PUSHED still comes, and is then dropped.
     */
    void abandon(final long id)
    {
        activeReceives.remove(id);
        abandoned.add(id);
    }

    boolean hasSends()
    {
        return !awaitingAck.isEmpty() || !streaming.isEmpty();
    }

    /**
     * @return the receive a PUSHED completes (the sender's part of a split copy is in), else null.
     */
    RecvRequest onAck(final ArrivedMessage f)
    {
        if (f.aux() == PUSHED)
        {
            final RecvRequest receive = activeReceives.remove(f.sequence());
            if (receive == null && abandoned.remove(f.sequence()))
            {
                return null;
            }
            if (receive == null || receive.matchedSource != f.source())
            {
                throw f.protocolError("PUSHED for no split receive (id " + f.sequence() + ")");
            }
            receive.received = receive.total;
            return receive;
        }
        final SendRequest request = awaitingAck.remove(ackKey(f.source(), f.sequence()));
        if (request == null)
        {
            throw f.protocolError("ACK for no pending send (sequence " + f.sequence() + ")");
        }
        // a RGET from this process's memory that its receiver could not read, or chose not to, is streamed, from the start
        final long aux = f.aux();
        final boolean byChoice = aux > 0 && (aux & STREAMED_BY_CHOICE) != 0; // a receive id, not COPIED or DISCARD
        final boolean streamed = request.fromProcess && aux > 0 && (aux & FROM_START) != 0;
        if (byChoice && !streamed)
        {
            throw f.protocolError("ACK " + f.aux() + " streamed by choice, for a message not offered to be read (sequence " +
                f.sequence() + ")");
        }
        if (request.shared != (f.aux() == COPIED) && f.aux() != DISCARD && !streamed)
        {
            throw f.protocolError("ACK " + f.aux() + " for a " + (request.shared ? "RGET" : "RNDV") + " (sequence " +
                f.sequence() + ")");
        }
        if (f.aux() == DISCARD || f.aux() == COPIED)
        {
            request.complete();
            return null;
        }
        request.shared = false;
        // it refused: a RNDV from now on, whose first chunk it keeps; unless it chose the pipeline for this one only
        noReads[request.dest] |= request.fromProcess && !byChoice;
        if ((f.aux() & FROM_START) != 0)
        {
            request.sent = 0; // the receiver dropped the first chunk the RNDV carried
        }
        request.remoteId = f.aux() & ~(FROM_START | STREAMED_BY_CHOICE);
        streaming.add(request);
        return null;
    }

    /**
     * @return the large send a PUSH names, still waiting for its ACK.
     */
    SendRequest pushed(final ArrivedMessage f)
    {
        final SendRequest request = awaitingAck.get(ackKey(f.source(), f.sequence()));
        if (request == null)
        {
            throw f.protocolError("PUSH for no large send (sequence " + f.sequence() + ")");
        }
        return request;
    }

    /**
     * A RNDV send whose receiver had it pushed into its shared buffer: every byte is there, no ACK follows.
     */
    void pushedAll(final SendRequest request)
    {
        awaitingAck.remove(ackKey(request.dest, request.sequence));
        request.complete();
    }

    /**
     * Copies one FRAG fragment into its receive's buffer, at its offset.
     *
     * @return the receive if this fragment completed it, else null.
     */
    RecvRequest onFrag(final ArrivedMessage f)
    {
        final RecvRequest request = activeReceives.get(f.aux());
        final long position = f.sequence();
        if (request == null || request.matchedSource != f.source() || position < 0 ||
            position + f.length() > request.total)
        {
            throw f.protocolError("fragment at " + position + " for no matching receive (id " + f.aux() + ")");
        }
        request.buffer.putBytes(request.offset + (int)position, f.buffer(), f.offset(), f.length());
        request.received += f.length();
        if (request.received < request.total)
        {
            return null;
        }
        activeReceives.remove(f.aux());
        return request;
    }

    /**
     * Streams acknowledged large sends in max-size fragments while the max pool has free fragments; the
     * receiver's returns refill it, which pipelines up to maxFragsPerRank fragments.
     *
     * @return fragments sent.
     */
    int advance()
    {
        int work = 0;
        for (int i = streaming.size(); i > 0; i--)
        {
            final SendRequest request = streaming.poll();
            try
            {
                work += stream(request);
            }
            catch (final Sm4jException ex)
            {
                // the receiver detached (or the job was aborted) mid-stream: the failure belongs to this send,
                // whose await reports it; only an abort, which ends every call, goes on up
                request.fail(ex);
                if (ex instanceof JobAbortedException)
                {
                    throw ex;
                }
                continue;
            }
            if (request.sent == request.length)
            {
                request.complete();
            }
            else
            {
                streaming.add(request);
            }
        }
        return work;
    }

    /**
     * Sends the request's next fragments while the max pool and the receiver's fast box take them.
     *
     * @return fragments sent.
     */
    private int stream(final SendRequest request)
    {
        int sent = 0;
        while (request.sent < request.length)
        {
            final int length = Math.min(chunk, request.length - request.sent);
            // refused: the max pool is empty, or this receiver's fast box is full; the next stream may still go
            // (to another receiver, or once a fragment comes back)
            if (!sender.trySendFrag(request.dest, request.sent, request.remoteId, request.buffer,
                request.offset + request.sent, length))
            {
                if (request.queuedAt == 0)
                {
                    request.queuedAt = System.nanoTime(); // a slow path: waits for room from here
                }
                break;
            }
            if (request.queuedAt != 0)
            {
                counters.roomWait(System.nanoTime() - request.queuedAt); // as a send queued for room (PendingSends)
                request.queuedAt = 0;
            }
            request.sent += length;
            sent++;
        }
        return sent;
    }

    /**
     * Adds the large sends still waiting for their ACK or streaming to {@code into} (a close names those
     * that fail).
     */
    void addSends(final List<SendRequest> into)
    {
        into.addAll(awaitingAck.values());
        into.addAll(streaming);
    }

    /**
     * Fails every send to a rank in {@code gone}, and every receive being filled by a rank in {@code silent} (gone,
     * with nothing of its left in shared memory).
     */
    void failOrphans(final boolean[] gone, final boolean[] silent)
    {
        awaitingAck.values().removeIf(send -> gone[send.dest] && Request.orphan(send, sendName(send)));
        streaming.removeIf(send -> gone[send.dest] && Request.orphan(send, sendName(send)));
        activeReceives.values().removeIf(recv -> silent[recv.matchedSource] &&
            Request.orphan(recv, "receive of " + recv.total + " bytes from rank " + recv.localRank(recv.matchedSource)));
    }

    private static String sendName(final SendRequest send)
    {
        return "send of " + send.length + " bytes to rank " + send.localRank(send.dest);
    }

    private long ackKey(final int peer, final long sequence)
    {
        return sequence * size + peer;
    }
}
