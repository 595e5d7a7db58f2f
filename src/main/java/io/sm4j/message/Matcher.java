package io.sm4j.message;

import io.sm4j.transport.Endpoint;
import io.sm4j.transport.FragmentHandler;
import io.sm4j.transport.FragmentView;
import io.sm4j.segment.Sm4jException;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import static io.sm4j.message.MessageType.*;

/**
 * Message matching at one rank (ob1's matching engine over the sm BTL): sends a checked request, takes
 * each arriving fragment from the transport and matches it against the posted receives, posts receives
 * against the queued messages, and delivers a match (eager: copy or zero-copy handler; large: first chunk,
 * then ACK, the rest through {@link Rendezvous}).
 */
final class Matcher implements FragmentHandler
{
    private final Endpoint endpoint;
    private final Rendezvous rendezvous;
    private final Barrier barrier;
    private final MatchQueues queues = new MatchQueues();
    private final UnsafeBuffer empty = new UnsafeBuffer(new byte[0]);
    private final int rank;
    private final int eagerPayload;
    private boolean inHandler;

    Matcher(final Endpoint endpoint, final Rendezvous rendezvous, final Barrier barrier)
    {
        this.endpoint = endpoint;
        this.rendezvous = rendezvous;
        this.barrier = barrier;
        this.rank = endpoint.rank();
        this.eagerPayload = endpoint.maxPayload();
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
     * Sends a checked eager message to a peer, in one fragment; the bytes are copied when this returns.
     */
    void sendEager(final int dest, final int tag, final long sequence, final DirectBuffer buffer, final int offset, final int length)
    {
        endpoint.send(dest, EAGER, tag, sequence, length, buffer, offset, length);
    }

    void sendEager(final int dest, final int tag, final long sequence, final byte[] buffer, final int offset, final int length)
    {
        endpoint.send(dest, EAGER, tag, sequence, length, buffer, offset, length);
    }

    /**
     * Sends a checked request: to this rank through the queues, an eager message in one fragment, a large
     * one by its RNDV fragment, which then waits for the receiver's ACK.
     */
    void send(final SendRequest request)
    {
        if (request.dest == rank)
        {
            sendToSelf(request);
        }
        else if (request.length <= eagerPayload)
        {
            sendEager(request.dest, request.tag, request.sequence, request.buffer, request.offset, request.length);
            request.complete();
        }
        else
        {
            request.sent = eagerPayload;
            endpoint.send(request.dest, RNDV, request.tag, request.sequence, request.length, request.buffer,
                request.offset, eagerPayload);
            // after the send: if it throws, no stale entry is left to wait for; the ACK cannot be handled
            // before this line because Endpoint.send never calls this handler (it parks what it drains)
            rendezvous.awaitAck(request);
        }
    }

    @Override
    public void onFragment(final FragmentView f)
    {
        final int type = f.type();
        switch (type)
        {
            case EAGER, RNDV ->
            {
                final boolean large = type == RNDV;
                final int length = f.length();
                final long total = f.aux();
                if (large ? total <= length || total > Integer.MAX_VALUE : total != length)
                {
                    throw Rendezvous.protocolError(f, rank, "length " + total + " with a " + length + "-byte first fragment");
                }
                arrival(f.source(), f.tag(), f.sequence(), (int)total, f.buffer(), f.offset(), length, large);
            }
            case ACK -> rendezvous.onAck(f, rank);
            case FRAG -> complete(rendezvous.onFrag(f, rank));
            case BARRIER -> barrier.onMessage(f.source());
            default -> throw Rendezvous.protocolError(f, rank, "unknown type");
        }
    }

    private void arrival(
        final int source, final int tag, final long sequence, final int total,
        final DirectBuffer buffer, final int offset, final int length, final boolean large)
    {
        final RecvRequest match = queues.takePosted(source, tag);
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
            arrival(rank, request.tag, 0, request.length, request.buffer, request.offset, request.length, false);
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
        final UnsafeBuffer first = new UnsafeBuffer(message.firstChunk());
        deliver(request, message.source(), message.tag(), message.sequence(), message.total(), first, 0,
            first.capacity(), message.large());
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
                endpoint.send(source, ACK, 0, sequence, DISCARD, empty, 0, 0);
            }
            return;
        }
        request.buffer.putBytes(request.offset, buffer, offset, length);
        request.received = length;
        if (!large)
        {
            request.complete(request.matchedStatus());
            return;
        }
        endpoint.send(source, ACK, 0, sequence, rendezvous.accept(request), empty, 0, 0);
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
        request.complete(request.matchedStatus());
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
        request.complete(status);
    }
}
