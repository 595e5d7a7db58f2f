package io.sm4j.message;

import io.sm4j.segment.Sm4jException;
import io.sm4j.transport.BufferChecks;
import io.sm4j.transport.Endpoint;
import io.sm4j.transport.FragmentHandler;
import io.sm4j.transport.FragmentView;
import io.sm4j.transport.Sm4j;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.ArrayList;

import static io.sm4j.message.MessageType.*;

/**
 * MPI-style point-to-point messaging between the ranks of a job: what applications program against.
 * <p>
 * Semantics: a receive matches on source ({@link #ANY_SOURCE} allowed) and tag ({@link #ANY_TAG} allowed);
 * an arriving message matches the earliest posted receive that accepts it, a posted receive the earliest
 * unexpected message; two messages from one sender that both match a receive are received in send order
 * (non-overtaking), eager and large alike, because each pair's FIFO is ordered and matching happens in
 * arrival order. Messages up to the eager payload go in one fragment; larger ones use rendezvous: the
 * first fragment announces the length and carries the first chunk, the receiver answers once matched, and
 * the sender streams the rest in max-size fragments, pipelined, copied straight into the posted buffer.
 * <p>
 * Not thread-safe: one thread per communicator. {@link #close()} completes outstanding sends; receives still
 * posted are dropped.
 */
public final class Communicator implements AutoCloseable
{
    public static final int ANY_SOURCE = -1;
    public static final int ANY_TAG = -1;
    private static final int POLL_LIMIT = 64;
    private static final long ORPHAN_CHECK_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(100);

    private final Endpoint endpoint;
    private final int rank;
    private final int size;
    private final int eagerPayload;
    private final int chunk;
    private final long[] nextSequence;
    private final ArrayList<RecvRequest> posted = new ArrayList<>();
    private final ArrayList<Unexpected> unexpected = new ArrayList<>();
    private final Rendezvous rendezvous;
    private final Barrier barrier;
    private final Runnable progressOrIdle = this::progressOrIdle;
    private final FragmentHandler onFragment = this::onFragment;
    private final UnsafeBuffer empty = new UnsafeBuffer(new byte[0]);
    private long nextOrphanCheck;
    private boolean inHandler;
    private boolean closed;

    /**
     * @param endpoint the transport endpoint; closed with this communicator.
     */
    public Communicator(final Endpoint endpoint)
    {
        this.endpoint = endpoint;
        this.rank = endpoint.rank();
        this.size = endpoint.size();
        this.eagerPayload = endpoint.maxPayload();
        this.chunk = endpoint.maxFragmentPayload();
        nextSequence = new long[size];
        rendezvous = new Rendezvous(endpoint);
        barrier = new Barrier(endpoint);
    }

    /**
     * @return the communicator of a rank started by {@code sm4j run}.
     */
    public static Communicator attachFromEnvironment()
    {
        return new Communicator(Sm4j.attachFromEnvironment());
    }

    public int rank()
    {
        return rank;
    }

    public int size()
    {
        return size;
    }

    /**
     * @return the largest message sent eagerly, in one fragment; larger ones go by rendezvous.
     */
    public int eagerPayload()
    {
        return eagerPayload;
    }

    public void send(final int dest, final int tag, final byte[] buffer)
    {
        send(dest, tag, Arguments.wrap(buffer), 0, buffer.length);
    }

    public void send(final int dest, final int tag, final byte[] buffer, final int offset, final int length)
    {
        send(dest, tag, Arguments.wrap(buffer), offset, length);
    }

    public void send(final int dest, final int tag, final ByteBuffer buffer)
    {
        send(dest, tag, Arguments.wrap(buffer), buffer.position(), buffer.remaining());
    }

    /**
     * Sends and returns when the buffer may be reused (a large message: once the receiver has matched it and
     * the last fragment has left).
     *
     * @throws IllegalArgumentException for a large message to this rank itself with no receive posted for it,
     *                                  which could never complete (post the receive first, or use isend).
     */
    public void send(final int dest, final int tag, final DirectBuffer buffer, final int offset, final int length)
    {
        if (dest == rank && length > eagerPayload && findPosted(rank, tag) < 0)
        {
            throw new IllegalArgumentException("a blocking send of " + length + " bytes to this rank itself (tag " + tag +
                ") would never complete: post the receive first, or use isend");
        }
        isend(dest, tag, buffer, offset, length).await();
    }

    public Request isend(final int dest, final int tag, final byte[] buffer, final int offset, final int length)
    {
        return isend(dest, tag, Arguments.wrap(buffer), offset, length);
    }

    public Request isend(final int dest, final int tag, final ByteBuffer buffer)
    {
        return isend(dest, tag, Arguments.wrap(buffer), buffer.position(), buffer.remaining());
    }

    /**
     * Starts a send. The buffer must not change until the request completes.
     */
    public Request isend(final int dest, final int tag, final DirectBuffer buffer, final int offset, final int length)
    {
        checkUsable();
        Arguments.checkRank("dest", dest, size, false);
        Arguments.checkTag(tag, false);
        BufferChecks.checkRange("buffer", buffer, offset, length);
        final long sequence = dest == rank ? 0 : nextSequence[dest]++;
        final SendRequest request = new SendRequest(this, dest, tag, sequence, buffer, offset, length);
        if (dest == rank)
        {
            sendToSelf(request);
        }
        else if (length <= eagerPayload)
        {
            endpoint.send(dest, EAGER, tag, sequence, length, buffer, offset, length);
            request.complete();
        }
        else
        {
            request.sent = eagerPayload;
            endpoint.send(dest, RNDV, tag, sequence, length, buffer, offset, eagerPayload);
            // after the send: if it throws, no stale entry is left to wait for; the ACK cannot be handled
            // before this line because Endpoint.send never calls this communicator's handler
            rendezvous.awaitAck(request);
        }
        return request;
    }

    public Status recv(final int source, final int tag, final byte[] buffer)
    {
        return irecv(source, tag, Arguments.wrap(buffer), 0, buffer.length).await();
    }

    public Status recv(final int source, final int tag, final byte[] buffer, final int offset, final int length)
    {
        return irecv(source, tag, buffer, offset, length).await();
    }

    public Status recv(final int source, final int tag, final ByteBuffer buffer)
    {
        return irecv(source, tag, buffer).await();
    }

    public Status recv(final int source, final int tag, final MutableDirectBuffer buffer, final int offset, final int length)
    {
        return irecv(source, tag, buffer, offset, length).await();
    }

    /**
     * Receives one message in place: an eager message that arrives after this call is handed to
     * {@code handler} straight from shared memory (zero copy); one that was already queued, or a large one,
     * from a heap copy.
     */
    public Status recv(final int source, final int tag, final MessageHandler handler)
    {
        checkUsable();
        Arguments.checkRank("source", source, size, true);
        Arguments.checkTag(tag, true);
        if (handler == null)
        {
            throw new NullPointerException("handler");
        }
        final RecvRequest request = new RecvRequest(this, source, tag, null, 0, 0, handler);
        post(request);
        return request.await();
    }

    public Request irecv(final int source, final int tag, final byte[] buffer, final int offset, final int length)
    {
        return irecv(source, tag, Arguments.wrap(buffer), offset, length);
    }

    public Request irecv(final int source, final int tag, final ByteBuffer buffer)
    {
        if (buffer != null && buffer.isReadOnly())
        {
            throw new java.nio.ReadOnlyBufferException();
        }
        return irecv(source, tag, Arguments.wrap(buffer), buffer.position(), buffer.remaining());
    }

    /**
     * Posts a receive of at most {@code length} bytes into {@code buffer} at {@code offset}.
     */
    public Request irecv(final int source, final int tag, final MutableDirectBuffer buffer, final int offset, final int length)
    {
        checkUsable();
        Arguments.checkRank("source", source, size, true);
        Arguments.checkTag(tag, true);
        BufferChecks.checkRange("buffer", buffer, offset, length);
        final RecvRequest request = new RecvRequest(this, source, tag, buffer, offset, length, null);
        post(request);
        return request;
    }

    /**
     * @return the status of the earliest queued message that a receive for ({@code source}, {@code tag})
     * would match, or null; progresses once.
     */
    public Status iprobe(final int source, final int tag)
    {
        checkUsable();
        Arguments.checkRank("source", source, size, true);
        Arguments.checkTag(tag, true);
        progress();
        return findUnexpected(source, tag);
    }

    /**
     * Waits until a message that a receive for ({@code source}, {@code tag}) would match has arrived.
     */
    public Status probe(final int source, final int tag)
    {
        checkUsable();
        Arguments.checkRank("source", source, size, true);
        Arguments.checkTag(tag, true);
        Status status;
        while ((status = findUnexpected(source, tag)) == null)
        {
            progressOrIdle();
        }
        return status;
    }

    /**
     * Returns once every rank has entered the barrier: a dissemination barrier, ceil(log2 n) rounds of one
     * message through the segment each.
     */
    public void barrier()
    {
        checkUsable();
        barrier.await(progressOrIdle);
    }

    /**
     * Drives the protocol once: receives, acknowledges, streams.
     *
     * @return work done.
     */
    public int progress()
    {
        checkUsable();
        return endpoint.poll(onFragment, POLL_LIMIT) + rendezvous.advance();
    }

    void progressOrIdle()
    {
        if (progress() == 0)
        {
            endpoint.idle();
            failOrphans();
        }
    }

    /**
     * Completes outstanding sends (progressing; a send to a rank that has detached fails instead of
     * waiting), then closes the endpoint, which delivers fragments still waiting for a full FIFO to every
     * rank that is still attached. Receives still posted are dropped. Idempotent.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        try
        {
            while (rendezvous.hasSends())
            {
                progressOrIdle();
            }
        }
        finally
        {
            closed = true;
            endpoint.close();
        }
    }

    /**
     * At most every {@link #ORPHAN_CHECK_NANOS} while idle: fails the requests that wait for a rank that has
     * detached (closed its endpoint) and so can never answer. Detachment is read first (acquire), then the
     * in-bound FIFOs are drained, so everything such a rank published before detaching has been received.
     */
    private void failOrphans()
    {
        final long now = System.nanoTime();
        if (now - nextOrphanCheck < 0)
        {
            return;
        }
        nextOrphanCheck = now + ORPHAN_CHECK_NANOS;
        final boolean[] gone = new boolean[size];
        int goneCount = 0;
        for (int peer = 0; peer < size; peer++)
        {
            if (peer != rank && !endpoint.isAttached(peer))
            {
                gone[peer] = true;
                goneCount++;
            }
        }
        if (goneCount == 0)
        {
            return;
        }
        while (progress() > 0)
        {
            // drain what the detached ranks sent before leaving
        }
        final boolean everyoneGone = goneCount == size - 1;
        rendezvous.failOrphans(gone);
        posted.removeIf(recv -> (recv.source == ANY_SOURCE ? everyoneGone : gone[recv.source]) &&
            Request.orphan(recv, "receive from " + (recv.source == ANY_SOURCE ? "any rank" : "rank " + recv.source)));
    }

    private void onFragment(final FragmentView f)
    {
        switch (f.type())
        {
            case EAGER, RNDV ->
            {
                final boolean large = f.type() == RNDV;
                final long total = f.aux();
                if (large ? total <= f.length() || total > Integer.MAX_VALUE : total != f.length())
                {
                    throw Rendezvous.protocolError(f, rank, "length " + total + " with a " + f.length() + "-byte first fragment");
                }
                arrival(f.source(), f.tag(), f.sequence(), (int)total, f.buffer(), f.offset(), f.length(), large);
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
        final int match = findPosted(source, tag);
        if (match >= 0)
        {
            deliver(posted.remove(match), source, tag, sequence, total, buffer, offset, length, large);
            return;
        }
        final byte[] copy = new byte[length];
        buffer.getBytes(offset, copy);
        unexpected.add(new Unexpected(source, tag, sequence, total, copy, large, null));
    }

    /**
     * A message to this rank: matched at once if a receive is posted; else queued, an eager one as a copy
     * and a large one by reference, the send completing only when a receive takes it.
     */
    private void sendToSelf(final SendRequest request)
    {
        if (request.length <= eagerPayload || findPosted(rank, request.tag) >= 0)
        {
            arrival(rank, request.tag, 0, request.length, request.buffer, request.offset, request.length, false);
            request.complete();
        }
        else
        {
            unexpected.add(new Unexpected(rank, request.tag, 0, request.length, null, false, request));
        }
    }

    /**
     * @return index of the earliest posted receive that accepts ({@code source}, {@code tag}), or -1.
     */
    private int findPosted(final int source, final int tag)
    {
        for (int i = 0; i < posted.size(); i++)
        {
            if (posted.get(i).matches(source, tag))
            {
                return i;
            }
        }
        return -1;
    }

    private void post(final RecvRequest request)
    {
        for (int i = 0; i < unexpected.size(); i++)
        {
            final Unexpected message = unexpected.get(i);
            if (request.matches(message.source(), message.tag()))
            {
                unexpected.remove(i);
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
                return;
            }
        }
        posted.add(request);
    }

    private void deliver(
        final RecvRequest request, final int source, final int tag, final long sequence, final int total,
        final DirectBuffer buffer, final int offset, final int length, final boolean large)
    {
        request.matchedSource = source;
        request.matchedTag = tag;
        request.total = total;
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

    private Status findUnexpected(final int source, final int tag)
    {
        for (final Unexpected message : unexpected)
        {
            if ((source == ANY_SOURCE || source == message.source()) && (tag == ANY_TAG || tag == message.tag()))
            {
                return new Status(message.source(), message.tag(), message.total());
            }
        }
        return null;
    }

    private void checkUsable()
    {
        if (inHandler)
        {
            throw new IllegalStateException("a MessageHandler must not call the communicator");
        }
        if (closed)
        {
            throw new IllegalStateException("communicator of rank " + rank + " is closed");
        }
    }

}
