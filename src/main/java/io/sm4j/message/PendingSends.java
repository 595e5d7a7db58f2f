package io.sm4j.message;

import io.sm4j.segment.JobAbortedException;
import io.sm4j.segment.Sm4jException;
import io.sm4j.transport.Endpoint;
import io.sm4j.transport.PeerMemory;
import io.sm4j.window.LocalWindows;
import io.sm4j.window.SharedBuffer;
import org.agrona.DirectBuffer;
import org.agrona.collections.LongArrayQueue;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.List;

/**
 * What this rank sends to its peers and that may have to wait for room: sends (an eager message in one
 * fragment, a large one by its RNDV fragment, which then waits for the ACK in {@link Rendezvous}) and the
 * ACKs the matcher owes. A send that finds no room at its receiver waits in that receiver's queue (later
 * sends to it queue behind, so order holds) and {@link #flush} starts it from the progress loop; an ACK
 * owed from inside a handler waits the same way. Nothing here waits itself.
 */
final class PendingSends
{
    private final Endpoint endpoint;
    private final MessageSender sender;
    private final Rendezvous rendezvous;
    private final int eagerPayload;
    private final int rendezvousPayload;
    private final ArrayDeque<SendRequest>[] waiting;
    /** Per receiver: the number the next large send to it takes (its RNDV's sequence). */
    private final long[] nextRendezvous;
    private int waitingCount;
    /** ACKs owed while their receiver had no room: (dest, sequence, aux) triples. */
    private final LongArrayQueue deferredAcks = new LongArrayQueue();
    /** This rank's shared buffers: a large send from one of them goes single-copy (RGET). */
    private final LocalWindows ownWindows;

    @SuppressWarnings("unchecked")
    PendingSends(final Endpoint endpoint, final MessageSender sender, final Rendezvous rendezvous, final LocalWindows ownWindows)
    {
        this.ownWindows = ownWindows;
        this.endpoint = endpoint;
        this.sender = sender;
        this.rendezvous = rendezvous;
        this.eagerPayload = sender.eagerPayload();
        this.rendezvousPayload = sender.rendezvousPayload();
        this.waiting = new ArrayDeque[endpoint.size()];
        this.nextRendezvous = new long[endpoint.size()];
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
     * Sends a checked request to a peer: started now if nothing waits for that peer and it has room, else
     * queued behind what waits.
     */
    void send(final SendRequest request)
    {
        if (!isEmpty(waiting[request.dest]) || !tryStart(request))
        {
            if (waiting[request.dest] == null)
            {
                waiting[request.dest] = new ArrayDeque<>(); // kept once made: a steady stream allocates nothing
            }
            request.queuedAt = System.nanoTime(); // a slow path: the engine's clock may be a long compute old
            waiting[request.dest].add(request);
            waitingCount++;
        }
    }

    /**
     * A PUSH now, if {@code dest} has room (a split copy is worth no wait: the caller copies everything itself
     * otherwise).
     */
    boolean trySendPush(
        final int dest, final long sequence, final long receiveId, final long chunkId, final long position, final long from)
    {
        return sender.trySendPush(dest, sequence, receiveId, chunkId, position, from);
    }

    /**
     * A HELP now, if {@code dest} has room (the origin copies everything itself otherwise).
     */
    boolean trySendHelp(
        final int dest, final long sequence, final boolean get, final int length, final long chunkId,
        final long position, final long targetChunkId, final long targetOffset)
    {
        return sender.trySendHelp(dest, sequence, get, length, chunkId, position, targetChunkId, targetOffset);
    }

    /**
     * Sends an ACK now, or defers it to {@link #flush} if its receiver has no room (a handler never waits).
     *
     * @return true if it was sent now.
     */
    boolean sendAck(final int dest, final long sequence, final long aux)
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
        final long shared = request.buffer instanceof SharedBuffer own ? own.sharedPosition(ownWindows, request.offset, request.length) : -1;
        final boolean fromProcess = shared < 0 && readsFromProcess(request);
        // NOTE: the caller's stores to the buffer precede the RGET's commit (a release): the receiver that
        // acquires the RGET copies them (a read of this process's memory by the kernel, after that acquire, too)
        if (shared >= 0 ? !sender.trySendShared(request.dest, request.tag, sequence, request.length,
            ((SharedBuffer)request.buffer).chunkId(), shared) :
            fromProcess ? !sender.trySendShared(request.dest, request.tag, sequence, request.length,
                MessageType.PROCESS_MEMORY, request.buffer.addressOffset() + request.offset) :
            !sender.trySendRendezvous(request.dest, request.tag, sequence, request.length, request.buffer,
                request.offset, rendezvousPayload))
        {
            return false;
        }
        nextRendezvous[request.dest]++;
        request.sequence = sequence;
        // single copy: the receiver takes it all
        request.sent = shared >= 0 || fromProcess ? request.length : rendezvousPayload;
        request.shared = shared >= 0 || fromProcess;
        request.fromProcess = fromProcess;
        rendezvous.awaitAck(request);
        return true;
    }

    /**
     * @return true if {@code request}, a large send, goes for its receiver to read from this process
     *         ({@link PeerMemory}): long enough, from off-heap memory at an address that stays put (not an array,
     *         which the collector moves; not a shared buffer, which goes by its own RGET), to a rank that has not
     *         refused such a read.
     */
    private boolean readsFromProcess(final SendRequest request)
    {
        return request.length >= PeerMemory.MIN_BYTES && endpoint.peerMemory() != null &&
            request.buffer.byteArray() == null && !(request.buffer instanceof SharedBuffer) && rendezvous.reads(request.dest);
    }

    /**
     * Starts the ACKs and sends that wait for room, in order per receiver.
     *
     * @return messages sent.
     */
    int flush()
    {
        int sent = 0;
        for (int i = deferredAcks.size() / 3; i > 0; i--)
        {
            final int dest = (int)deferredAcks.pollLong();
            final long sequence = deferredAcks.pollLong();
            final long aux = deferredAcks.pollLong();
            // an ACK to a rank that has detached is dropped: nobody is left to read it
            if (endpoint.job().isAttached(dest) && sendAck(dest, sequence, aux))
            {
                sent++;
            }
        }
        for (int dest = 0; waitingCount > 0 && dest < waiting.length; dest++)
        {
            final ArrayDeque<SendRequest> queue = waiting[dest];
            // sends to a rank that has detached stay until failOrphans fails them
            while (queue != null && !queue.isEmpty() && endpoint.job().isAttached(dest) && startedOrGone(queue.peek()))
            {
                final SendRequest started = queue.poll();
                endpoint.counters().roomWait(System.nanoTime() - started.queuedAt);
                started.queuedAt = 0; // a large send's fragments may wait for room again (Rendezvous)
                waitingCount--;
                sent++;
            }
        }
        return sent;
    }

    /**
     * @return true if the queued send started; false if it still waits for room, or its rank detached between the
     *         caller's look and its claim (it stays for failOrphans to fail it by name: the claim's "rank 1 has
     *         detached" thrown from here would fail whatever call this pass runs in, and leave the send queued).
     */
    private boolean startedOrGone(final SendRequest request)
    {
        if (request.buffer instanceof SharedBuffer freed && !freed.isLive())
        {
            // freed while it waited for room: its bytes are gone (the view has none); failed here, it leaves the queue
            // (a start that threw would stay at its head, failing every later pass and holding back every later send)
            request.fail(new Sm4jException("the send of " + request.length + " bytes to rank " + request.localRank(request.dest) +
                " cannot start: its shared buffer " + freed.chunkId() + " was freed while the send waited"));
            return true;
        }
        try
        {
            return tryStart(request);
        }
        catch (final Sm4jException ex)
        {
            if (!(ex instanceof JobAbortedException) && !endpoint.job().isAttached(request.dest))
            {
                return false;
            }
            throw ex;
        }
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
     * Adds the sends waiting for room to {@code into} (a close names those that fail).
     */
    void addSends(final List<SendRequest> into)
    {
        for (final Collection<SendRequest> queue : waiting)
        {
            if (queue != null)
            {
                into.addAll(queue);
            }
        }
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
                    Request.orphan(send, "send of " + send.length + " bytes to rank " + send.localRank(dest));
                }
                waitingCount -= waiting[dest].size();
                waiting[dest].clear();
            }
        }
    }
}
