package io.sm4j.message;

import io.sm4j.transport.Endpoint;
import io.sm4j.transport.FragmentHandler;
import io.sm4j.transport.FragmentView;
import io.sm4j.segment.Sm4jException;
import org.agrona.DirectBuffer;
import org.agrona.collections.LongArrayQueue;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayDeque;

import static io.sm4j.message.MessageType.*;

/**
 * Message matching at one rank (ob1's matching engine over the sm BTL): sends a checked request, takes
 * each arriving fragment from the transport and matches it against the posted receives, posts receives
 * against the queued messages, and delivers a match (eager: copy or zero-copy handler; large: first chunk,
 * then ACK, the rest through {@link Rendezvous}).
 * <p>
 * Nothing here waits: a send that finds no room at its receiver waits in that receiver's queue of waiting
 * sends (later sends to it queue behind, so order holds) and {@link #flushSends} starts it from the progress
 * loop; an ACK owed from inside a handler waits the same way. Arrived messages that no receive matches are
 * kept up to the rank's unexpected-message budget; beyond it {@link #accepts} declines them, and they wait
 * in shared memory, holding their senders back.
 */
final class Matcher implements FragmentHandler
{
    /** The probe tag while no probe runs (no message has it). */
    private static final int NO_PROBE = -2;
    private static final byte[] NO_BYTES = new byte[0];

    private final Endpoint endpoint;
    private final MessageSender sender;
    private final Incoming incoming;
    private final Rendezvous rendezvous;
    private final Barrier barrier;
    private final MatchQueues queues = new MatchQueues();
    private final int rank;
    private final int eagerPayload;
    private final int rendezvousPayload;
    private final long unexpectedLimit;
    private final ArrayDeque<SendRequest>[] waiting;
    /** Per receiver: the number the next large send to it takes (its RNDV's sequence). */
    private final long[] nextRendezvous;
    private int waitingCount;
    /** ACKs owed while their receiver had no room: (dest, sequence, aux) triples. */
    private final LongArrayQueue deferredAcks = new LongArrayQueue();
    /** The posted receive {@link #accepts} found for the message about to be delivered, or null. */
    private RecvRequest accepted;
    /** What a probe waits for (tag {@link #NO_PROBE}: none), and the first declined message it would see. */
    private int probeSource = Communicator.ANY_SOURCE;
    private int probeTag = NO_PROBE;
    private Status declinedForProbe;
    /** The receive a blocking call waits for, or null: once it completes, unmatched messages stay put. */
    private RecvRequest awaited;
    private final UnsafeBuffer firstChunk = new UnsafeBuffer(NO_BYTES);
    private boolean inHandler;

    @SuppressWarnings("unchecked")
    Matcher(final Endpoint endpoint, final MessageSender sender, final Rendezvous rendezvous, final Barrier barrier)
    {
        this.endpoint = endpoint;
        this.sender = sender;
        this.rendezvous = rendezvous;
        this.barrier = barrier;
        this.rank = endpoint.rank();
        this.incoming = new Incoming(rank);
        this.eagerPayload = sender.eagerPayload();
        this.rendezvousPayload = sender.rendezvousPayload();
        this.unexpectedLimit = endpoint.unexpectedBytes();
        this.waiting = new ArrayDeque[endpoint.size()];
        this.nextRendezvous = new long[endpoint.size()];
    }

    MatchQueues queues()
    {
        return queues;
    }

    /**
     * @return true while a {@link MessageHandler} runs (it must not call the communicator).
     */
    boolean inHandler()
    {
        return inHandler;
    }

    /**
     * Tries to send a checked eager message to a peer; the bytes are copied when this returns true.
     *
     * @return false if earlier sends to {@code dest} still wait, or it has no room now: progress, then retry.
     */
    boolean trySendEager(final int dest, final int tag, final DirectBuffer buffer, final int offset, final int length)
    {
        return isEmpty(waiting[dest]) && sender.trySendEager(dest, tag, buffer, offset, length);
    }

    /**
     * Sends a checked request: to this rank through the queues; to a peer, started now if nothing waits for
     * that peer and it has room, else queued behind what waits.
     */
    void send(final SendRequest request)
    {
        if (request.dest == rank)
        {
            sendToSelf(request);
        }
        else if (!isEmpty(waiting[request.dest]) || !tryStart(request))
        {
            if (waiting[request.dest] == null)
            {
                waiting[request.dest] = new ArrayDeque<>(); // kept once made: a steady stream allocates nothing
            }
            waiting[request.dest].add(request);
            waitingCount++;
        }
    }

    /**
     * An eager message in one fragment; a large one by its RNDV fragment, which then waits for the ACK.
     *
     * @return false if the receiver had no room (nothing was sent).
     */
    private boolean tryStart(final SendRequest request)
    {
        if (request.length <= eagerPayload)
        {
            if (!sender.trySendEager(request.dest, request.tag, request.buffer, request.offset, request.length))
            {
                return false;
            }
            request.complete();
            return true;
        }
        final long sequence = nextRendezvous[request.dest];
        if (!sender.trySendRendezvous(request.dest, request.tag, sequence, request.length, request.buffer,
            request.offset, rendezvousPayload))
        {
            return false;
        }
        nextRendezvous[request.dest]++;
        request.sequence = sequence;
        request.sent = rendezvousPayload;
        rendezvous.awaitAck(request);
        return true;
    }

    /**
     * Starts the sends and ACKs that wait for room, in order per receiver.
     *
     * @return messages sent.
     */
    int flushSends()
    {
        int sent = 0;
        for (int i = deferredAcks.size() / 3; i > 0; i--)
        {
            final int dest = (int)deferredAcks.pollLong();
            final long sequence = deferredAcks.pollLong();
            final long aux = deferredAcks.pollLong();
            // an ACK to a rank that has detached is dropped: nobody is left to read it
            if (endpoint.isAttached(dest) && sendAck(dest, sequence, aux))
            {
                sent++;
            }
        }
        for (int dest = 0; waitingCount > 0 && dest < waiting.length; dest++)
        {
            final ArrayDeque<SendRequest> queue = waiting[dest];
            // sends to a rank that has detached stay until failOrphans fails them
            while (queue != null && !queue.isEmpty() && endpoint.isAttached(dest) && tryStart(queue.peek()))
            {
                queue.poll();
                waitingCount--;
                sent++;
            }
        }
        return sent;
    }

    private static boolean isEmpty(final ArrayDeque<SendRequest> queue)
    {
        return queue == null || queue.isEmpty();
    }

    /**
     * @return true while sends or ACKs wait for room.
     */
    boolean hasWaiting()
    {
        return waitingCount > 0 || !deferredAcks.isEmpty();
    }

    /**
     * Fails the waiting sends to ranks in {@code gone}.
     */
    void failOrphans(final boolean[] gone)
    {
        for (int dest = 0; dest < waiting.length; dest++)
        {
            if (gone[dest] && !isEmpty(waiting[dest]))
            {
                for (final SendRequest send : waiting[dest])
                {
                    Request.orphan(send, "send of " + send.length + " bytes to rank " + dest);
                }
                waitingCount -= waiting[dest].size();
                waiting[dest].clear();
            }
        }
    }

    /**
     * Names the receive a blocking call waits for (null when it returns). Once it has completed, the rest of
     * that poll leaves unmatched messages in shared memory instead of copying them to the heap: the caller
     * returns to the application, whose next receive will likely take them in place.
     */
    void awaiting(final RecvRequest request)
    {
        awaited = request;
    }

    /**
     * Declines an arriving message that no posted receive takes once the unexpected messages kept reach the
     * budget, or once the receive a blocking call waits for has completed; remembers the receive that takes
     * it otherwise.
     */
    @Override
    public boolean accepts(final FragmentView fragment)
    {
        final Incoming f = incoming.read(fragment);
        final int type = f.type();
        if (type != EAGER && type != RNDV)
        {
            return true;
        }
        accepted = queues.takePosted(f.source(), f.tag());
        if (accepted != null ||
            (awaited == null || !awaited.isComplete()) && queues.unexpectedBytes() + f.length() <= unexpectedLimit)
        {
            return true;
        }
        if (declinedForProbe == null && RecvRequest.accepts(probeSource, probeTag, f.source(), f.tag()))
        {
            // it stays in shared memory, but it has arrived: the probe sees it (the length is checked on delivery)
            declinedForProbe = new Status(f.source(), f.tag(), type == EAGER ? f.length() : (int)Math.min(f.aux(), Integer.MAX_VALUE));
        }
        return false;
    }

    /**
     * Starts a probe for ({@code source}, {@code tag}): messages declined meanwhile that it would take are
     * noted for {@link #probed}.
     */
    void probing(final int source, final int tag)
    {
        probeSource = source;
        probeTag = tag;
        declinedForProbe = null;
    }

    void endProbe()
    {
        probing(Communicator.ANY_SOURCE, NO_PROBE);
    }

    /**
     * @return the envelope of the earliest queued message a receive for ({@code source}, {@code tag}) would
     * take, else of a message noted while declined, else null.
     */
    Status probed(final int source, final int tag)
    {
        final Status queued = queues.peekUnexpected(source, tag);
        return queued != null ? queued : declinedForProbe;
    }

    @Override
    public void onFragment(final FragmentView fragment)
    {
        final Incoming f = incoming; // read by accepts, just before, from this fragment: read once
        final int type = f.type();
        switch (type)
        {
            case EAGER, RNDV ->
            {
                final boolean large = type == RNDV;
                final int length = f.length();
                final long total = large ? f.aux() : length;
                if (large && (total <= length || total > Integer.MAX_VALUE))
                {
                    throw f.protocolError("length " + total + " with a " + length + "-byte first fragment");
                }
                final RecvRequest match = accepted;
                accepted = null;
                arrival(match, f.source(), f.tag(), f.sequence(), (int)total, f.buffer(), f.offset(), length, large);
            }
            case ACK -> rendezvous.onAck(f);
            case FRAG -> complete(rendezvous.onFrag(f));
            default -> barrier.onMessage(f.source()); // BARRIER: Incoming knows no other type
        }
    }

    private void arrival(
        final RecvRequest match, final int source, final int tag, final long sequence, final int total,
        final DirectBuffer buffer, final int offset, final int length, final boolean large)
    {
        if (match != null)
        {
            deliver(match, source, tag, sequence, total, buffer, offset, length, large);
            return;
        }
        final byte[] copy = new byte[length];
        buffer.getBytes(offset, copy);
        queues.queue(new Unexpected(source, tag, sequence, total, copy, large, null));
    }

    /**
     * A message to this rank: matched at once if a receive is posted; else queued, an eager one as a copy
     * and a large one by reference, the send completing only when a receive takes it.
     */
    private void sendToSelf(final SendRequest request)
    {
        if (request.length <= eagerPayload || queues.hasPosted(rank, request.tag))
        {
            arrival(queues.takePosted(rank, request.tag), rank, request.tag, 0, request.length, request.buffer,
                request.offset, request.length, false);
            request.complete();
        }
        else
        {
            queues.queue(new Unexpected(rank, request.tag, 0, request.length, null, false, request));
        }
    }

    void post(final RecvRequest request)
    {
        final Unexpected message = queues.takeUnexpected(request);
        if (message == null)
        {
            queues.post(request);
            return;
        }
        final SendRequest local = message.localSend();
        if (local != null)
        {
            deliver(request, rank, local.tag, 0, local.length, local.buffer, local.offset, local.length, false);
            local.complete();
            return;
        }
        firstChunk.wrap(message.firstChunk());
        deliver(request, message.source(), message.tag(), message.sequence(), message.total(), firstChunk, 0,
            firstChunk.capacity(), message.large());
        firstChunk.wrap(NO_BYTES); // do not keep the copy alive
    }

    private void deliver(
        final RecvRequest request, final int source, final int tag, final long sequence, final int total,
        final DirectBuffer buffer, final int offset, final int length, final boolean large)
    {
        request.matchedSource = source;
        request.matchedTag = tag;
        request.total = total;
        if (large && !endpoint.isAttached(source))
        {
            // its RNDV was drained after it detached: nobody is left to answer the ACK with the rest
            Request.orphan(request, "receive of " + total + " bytes from rank " + source);
            return;
        }
        if (request.handler != null)
        {
            if (!large)
            {
                callHandler(request, buffer, offset);
                return;
            }
            request.buffer = new UnsafeBuffer(new byte[total]);
            request.capacity = total;
        }
        if (total > request.capacity)
        {
            request.fail(new TruncationException(source, tag, total, request.capacity));
            if (large)
            {
                sendAck(source, sequence, DISCARD);
            }
            return;
        }
        request.buffer.putBytes(request.offset, buffer, offset, length);
        request.received = length;
        if (!large)
        {
            request.completeMatched();
            return;
        }
        sendAck(source, sequence, rendezvous.accept(request));
    }

    /**
     * Sends an ACK now, or defers it to {@link #flushSends} if its receiver has no room (a handler never waits).
     *
     * @return true if it was sent now.
     */
    private boolean sendAck(final int dest, final long sequence, final long aux)
    {
        if (sender.trySendAck(dest, sequence, aux))
        {
            return true;
        }
        deferredAcks.addLong(dest);
        deferredAcks.addLong(sequence);
        deferredAcks.addLong(aux);
        return false;
    }

    /**
     * Completes a large receive once its last fragment is in (null: not yet).
     */
    private void complete(final RecvRequest request)
    {
        if (request == null)
        {
            return;
        }
        if (request.handler != null)
        {
            callHandler(request, request.buffer, 0);
            return;
        }
        request.completeMatched();
    }

    /**
     * Runs a receive's handler; the request completes with the handler's outcome (an exception fails it and
     * is rethrown). The handler must not call back into this communicator.
     */
    private void callHandler(final RecvRequest request, final DirectBuffer buffer, final int offset)
    {
        final Status status = request.matchedStatus();
        inHandler = true;
        try
        {
            request.handler.onMessage(status, buffer, offset);
        }
        catch (final RuntimeException ex)
        {
            request.fail(new Sm4jException("the message handler failed on " + status + ": " + ex, ex));
            throw ex;
        }
        finally
        {
            inHandler = false;
        }
        request.completeFilled();
    }
}
