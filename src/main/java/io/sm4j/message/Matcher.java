package io.sm4j.message;

import io.sm4j.job.RankCounters;
import io.sm4j.segment.Buffers;
import io.sm4j.segment.Sm4jException;
import io.sm4j.transport.Endpoint;
import io.sm4j.transport.FragmentHandler;
import io.sm4j.transport.FragmentView;
import io.sm4j.transport.PeerMemory;
import io.sm4j.window.BufferGoneException;
import io.sm4j.window.LocalWindows;
import io.sm4j.window.PeerWindows;
import io.sm4j.window.SharedBuffer;
import io.sm4j.window.SplitCopy;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import static io.sm4j.message.MessageType.*;

/**
 * Message matching at one rank (ob1's matching engine over the sm BTL): takes each arriving fragment from
 * the transport and matches it against the posted receives, posts receives against the queued messages,
 * and delivers a match (eager: copy or zero-copy handler; large: first chunk, then ACK through
 * {@link PendingSends}, the rest through {@link Rendezvous}; large from a shared buffer: one copy out of the
 * sender's buffer through {@link PeerWindows}, then ACK). Messages to this rank itself are matched here.
 * <p>
 * Nothing here waits. Arrived messages that no receive matches are kept up to the rank's
 * unexpected-message budget; beyond it {@link #accepts} declines them, and they wait in shared memory,
 * holding their senders back.
 */
final class Matcher implements FragmentHandler
{
    /** The probe tag while no probe runs: no message has it (users' tags are >= 0, the collectives' above this). */
    private static final int NO_PROBE = Integer.MIN_VALUE;
    private static final byte[] NO_BYTES = new byte[0];
    /**
     * A RGET into a shared buffer at least this long is copied by both ranks. Below it the split's rare
     * stalls cost more than it saves: from 256 KiB to 1 MiB the median halved but 1 % of round trips took
     * 1.2-2 ms (the receiver spun for the sender's half while the sender was queued on its core), and the
     * means were no better or worse (docs/windows.md).
     */
    private static final int SPLIT_MIN = 2 << 20;
    /** The split point is a multiple of this: each rank copies whole lines. */
    private static final int SPLIT_ALIGNMENT = 64;

    private final Endpoint endpoint;
    private final PendingSends sends;
    private final ArrivedMessage incoming;
    private final Rendezvous rendezvous;
    private final Barrier barrier;
    private final MatchQueues queues;
    private final int rank;
    private final int eagerPayload;
    private final long unexpectedLimit;
    private final BudgetStalls stalls;
    private final RankCounters counters;
    private final PeerWindows windows;
    private final LocalWindows ownWindows;
    /** The posted receive {@link #accepts} found for the message about to be delivered, or null. */
    private RecvRequest accepted;
    /** What a probe waits for (tag {@link #NO_PROBE}: none), and the first declined message it would see. */
    private int probeSource = Communicator.ANY_SOURCE;
    private int probeTag = NO_PROBE;
    private Status declinedForProbe;
    /** The receive a blocking call waits for, or null: once it completes, unmatched messages stay put. */
    private RecvRequest awaited;
    private final UnsafeBuffer firstChunk = new UnsafeBuffer(NO_BYTES);
    /** Set by {@link #accepts} for the unmatched large message about to be queued without its first chunk. */
    private boolean keepEnvelopeOnly;
    /** {@link #accepts} declined the message it read for the budget (not for a blocking receive that is done). */
    private boolean budgetDeclined;
    /** Set by {@link #post} while it delivers a message kept without its first chunk. */
    private boolean fromStart;
    /** Set at close: {@link #closing}. */
    private boolean closing;
    /** Told when a receive's handler runs: the communicator refuses calls from inside it. */
    private final CallingThread thread;
    /**
     * Whether a large message from a peer's off-heap memory is read (the first way) or streamed; null if every one
     * is read.
     */
    private final FasterOfTwo readOrStream;
    /** Nanoseconds this rank has spent reading messages out of its peers' processes, as {@link #readOrStream} chose. */
    private long readNanos;

    Matcher(
        final Endpoint endpoint, final int eagerPayload, final PendingSends sends, final Rendezvous rendezvous,
        final Barrier barrier, final PeerWindows windows, final LocalWindows ownWindows, final CallingThread thread)
    {
        this.thread = thread;
        this.windows = windows;
        this.ownWindows = ownWindows;
        this.endpoint = endpoint;
        this.sends = sends;
        this.rendezvous = rendezvous;
        this.barrier = barrier;
        this.rank = endpoint.rank();
        this.incoming = new ArrivedMessage(rank);
        this.eagerPayload = eagerPayload;
        this.unexpectedLimit = endpoint.unexpectedBytes();
        this.stalls = new BudgetStalls(rank, endpoint.size(), unexpectedLimit, System.err);
        this.queues = new MatchQueues(endpoint.size());
        this.counters = endpoint.counters();
        this.readOrStream = endpoint.choosesPeerReads() ? new FasterOfTwo(endpoint.size()) : null; // a lane per sender
    }

    /**
     * From now on every arriving message is taken, unmatched ones as envelopes only: the rank closes, and
     * {@link #leftOver} names them.
     */
    void closing()
    {
        closing = true;
    }

    /**
     * @return the line naming the messages no receive took, or null if there are none.
     */
    String leftOver()
    {
        return LeftOver.unreceived(rank, queues.unexpected());
    }

    /**
     * On the progress loop's health tick: says once if the budget has held messages back for a while.
     */
    void checkStalls(final long now)
    {
        final long kept = queues.unexpectedBytes();
        stalls.check(now, kept);
        counters.unexpected(kept);
    }

    /**
     * @return the error for a wait without a deadline that needs a message from {@code source} which the
     *         budget has held back for a while ({@link BudgetStalls#starved}), else null.
     */
    Sm4jException starved(final int source, final long now)
    {
        return stalls.starved(source, now, queues.unexpectedBytes());
    }

    MatchQueues queues()
    {
        return queues;
    }

    /**
     * @return true if a message from {@code source} was declined for the budget since the last health tick: it, and
     *         what {@code source} sent after it, wait in shared memory.
     */
    boolean holdsBack(final int source)
    {
        return stalls.heldBack(source);
    }

    /**
     * @return true if the budget has held {@code source}'s messages back for the starvation check's second.
     */
    boolean heldTooLong(final int source, final long now)
    {
        return stalls.heldTooLong(source, now);
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
        final ArrivedMessage f = incoming.read(fragment);
        final int type = f.type();
        keepEnvelopeOnly = false;
        budgetDeclined = false;
        if (!MessageType.matched(type))
        {
            return true;
        }
        accepted = queues.takePosted(f.source(), f.tag());
        if (accepted != null || closing)
        {
            return true;
        }
        if (awaited == null || !awaited.isDone())
        {
            final long kept = queues.unexpectedBytes() + Unexpected.ENVELOPE_BYTES;
            // first chunks of large messages (RNDV; a RGET keeps its 16-byte reference) fill at most half the budget, then they are kept as envelopes (the
            // receiver asks for every byte when it matches): unexpected large sends take tens of bytes each, and
            // hundreds of thousands fit ahead of a message a receive waits for
            keepEnvelopeOnly = type == RNDV && kept + f.length() > unexpectedLimit / 2;
            if (kept + (keepEnvelopeOnly ? 0 : f.length()) <= unexpectedLimit)
            {
                return true;
            }
            stalls.declined(f.source());
            budgetDeclined = true;
        }
        if (declinedForProbe == null && RecvRequest.accepts(probeSource, probeTag, f.source(), f.tag()))
        {
            // it stays in shared memory, but it has arrived: the probe sees it (the length is checked on delivery)
            declinedForProbe = new Status(f.source(), f.tag(), type == EAGER ? f.length() : (int)Math.min(f.aux(), Integer.MAX_VALUE));
        }
        return false;
    }

    /**
     * A protocol message (any type but EAGER, RNDV and RGET; {@link #accepts} always takes it) may be what a rank
     * waits for: the ACK its large send waits for, a FRAG its receive waits for, a barrier's message. Read here
     * without {@link ArrivedMessage}, which holds the declined message ahead of it. A message a posted receive
     * would take is not one: taking what stands ahead of it would let a receive of one tag pull every message of
     * another into the heap, which is what the budget is for.
     */
    @Override
    public boolean mustNotWait(final FragmentView fragment)
    {
        if (fragment.length() < MessageHeaderDescriptor.MATCH_HEADER_LENGTH)
        {
            return true; // not a message: let the poll that reaches it report it
        }
        final int type = fragment.buffer().getInt(fragment.offset() + MessageHeaderDescriptor.TYPE_OFFSET);
        return !MessageType.matched(type);
    }

    /**
     * Takes a message {@link #accepts} declined when something behind it must not wait: the unexpected
     * messages then overdraw their budget by at most what one sender's path holds ahead of it (its fast box
     * ring and its eager fragments for this rank; a large message's envelope only), which keeps a program
     * that MPI calls safe from hanging on the budget (an ACK behind messages nobody has received yet). The
     * declined message was read by {@code accepts} ({@link #incoming}) and no posted receive took it. The
     * overdraft is per such message: while protocol messages keep coming behind declined ones (a rank that sends
     * large messages to a peer whose isends it does not receive), each takes in what stands ahead of it. A message
     * declined because the blocking receive the poll serves is done stays: the next receive takes it in place.
     */
    @Override
    public boolean acceptsAhead(final FragmentView fragment)
    {
        return budgetDeclined; // a RNDV the budget declined was already to be kept as its envelope only
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
        final ArrivedMessage f = incoming; // read by accepts, just before, from this fragment: read once
        final int type = f.type();
        if (budgetDeclined)
        {
            stalls.taken(f.source()); // taken by acceptsAhead after all
        }
        switch (type)
        {
            case EAGER, RNDV, RGET ->
            {
                final int length = f.length();
                final long total = type == EAGER ? length : f.aux();
                if (type == RNDV && (total <= length || total > Integer.MAX_VALUE))
                {
                    throw f.protocolError("length " + total + " with a " + length + "-byte first fragment");
                }
                if (type == RGET && (length != RGET_PAYLOAD || total < 1 || total > Integer.MAX_VALUE))
                {
                    throw f.protocolError("a shared buffer's message of " + total + " bytes with a " + length +
                        "-byte reference");
                }
                if (type == RGET && f.buffer().getLong(f.offset()) == PROCESS_MEMORY && f.buffer().getLong(f.offset() + Long.BYTES) <= 0)
                {
                    throw f.protocolError("a message in the sender's process at address " + f.buffer().getLong(f.offset() + Long.BYTES));
                }
                final RecvRequest match = accepted;
                accepted = null;
                counters.messageReceived(total); // inside the poll, and so inside the endpoint's gate
                arrival(match, f.source(), f.tag(), f.sequence(), (int)total, f.buffer(), f.offset(),
                    keepEnvelopeOnly ? 0 : length, type);
            }
            case ACK -> complete(rendezvous.onAck(f));
            case PUSH -> push(f);
            case HELP -> help(f);
            case FRAG -> complete(streamEnded(rendezvous.onFrag(f)));
            default -> barrier.onMessage(f.source()); // BARRIER: ArrivedMessage knows no other type
        }
    }

    private void arrival(
        final RecvRequest match, final int source, final int tag, final long sequence, final int total,
        final DirectBuffer buffer, final int offset, final int length, final int type)
    {
        if (match != null)
        {
            deliver(match, source, tag, sequence, total, buffer, offset, length, type);
            return;
        }
        // none: a large message kept as its envelope, or anything counted at close
        final byte[] copy = closing ? NO_BYTES : new byte[length];
        buffer.getBytes(offset, copy);
        queue(new Unexpected(source, tag, sequence, total, copy, type, null));
    }

    /**
     * Queues a message no posted receive took, and fails the collective's receive it shows to be crossed.
     */
    private void queue(final Unexpected message)
    {
        final RecvRequest crossed = queues.queue(message);
        if (crossed != null)
        {
            crossed.fail(crossing(crossed, message));
        }
    }

    private static CrossedCollectiveException crossing(final RecvRequest request, final Unexpected message)
    {
        final int context = Contexts.collectiveContext(request.tag);
        return new CrossedCollectiveException(request.source, Contexts.fromCollectiveWire(context, message.tag()),
            Contexts.fromCollectiveWire(context, request.tag));
    }

    /**
     * A message to this rank: matched at once if a receive is posted; else queued, an eager one as a copy
     * and a large one by reference, the send completing only when a receive takes it.
     */
    void sendToSelf(final SendRequest request)
    {
        if (request.length <= eagerPayload || queues.hasPosted(rank, request.tag))
        {
            arrival(queues.takePosted(rank, request.tag), rank, request.tag, 0, request.length, request.buffer,
                request.offset, request.length, EAGER);
            request.complete();
        }
        else
        {
            queue(new Unexpected(rank, request.tag, 0, request.length, null, EAGER, request));
        }
    }

    void post(final RecvRequest request)
    {
        final Unexpected message = queues.takeUnexpected(request);
        if (message == null)
        {
            final Unexpected crossing = queues.post(request);
            if (crossing != null)
            {
                request.fail(crossing(request, crossing));
            }
            return;
        }
        final SendRequest local = message.localSend();
        if (local != null)
        {
            try
            {
                deliver(request, rank, local.tag, 0, local.length, local.buffer, local.offset, local.length, EAGER);
            }
            finally
            {
                local.complete(); // taken from the queue: whatever the receive's handler did, the send is done
            }
            return;
        }
        firstChunk.wrap(message.firstChunk());
        fromStart = message.envelopeOnly();
        try
        {
            deliver(request, message.source(), message.tag(), message.sequence(), message.total(), firstChunk, 0,
                firstChunk.capacity(), message.type());
        }
        finally
        {
            fromStart = false; // a later ACK for a message delivered with its first chunk must not ask for it again
            firstChunk.wrap(NO_BYTES); // do not keep the copy alive
        }
    }

    private void deliver(
        final RecvRequest request, final int source, final int tag, final long sequence, final int total,
        final DirectBuffer buffer, final int offset, final int length, final int type)
    {
        final boolean large = type != EAGER;
        request.matchedSource = source;
        request.matchedTag = tag;
        request.total = total;
        if (large && !endpoint.job().isAttached(source))
        {
            // its RNDV was drained after it detached: nobody is left to answer the ACK with the rest
            Request.orphan(request, "receive of " + total + " bytes from rank " + request.localRank(source));
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
            request.fail(new TruncationException(request.localRank(source), request.userTag(tag), total, request.capacity));
            if (large)
            {
                sends.sendAck(source, sequence, DISCARD);
            }
            return;
        }
        if (type == RGET)
        {
            copyShared(request, source, sequence, buffer, offset);
            return;
        }
        Buffers.putBytes(request.buffer, request.offset, buffer, offset, length);
        request.received = length;
        if (!large)
        {
            request.completeMatched();
            return;
        }
        if (requestPush(request, source, sequence, request.received) < 0)
        {
            sends.sendAck(source, sequence, rendezvous.accept(request) | (fromStart ? FROM_START : 0));
        }
    }

    /**
     * The one copy of a message sent from a shared buffer: straight out of the sender's buffer (whose
     * reference {@code buffer} holds at {@code offset}) into the receive's, then the ACK that completes the send.
     * A buffer that is gone fails this receive and releases the send.
     */
    private void copyShared(
        final RecvRequest request, final int source, final long sequence, final DirectBuffer buffer, final int offset)
    {
        final long chunkId = buffer.getLong(offset);
        final long position = buffer.getLong(offset + Long.BYTES);
        if (chunkId == PROCESS_MEMORY)
        {
            readFromProcess(request, source, sequence, position);
            return;
        }
        // split with the sender when the receive buffer is this rank's shared buffer, the message large and both
        // ranks can run at once: it copies the second half while this rank copies the first (two cores copy
        // 4 MiB in about 0.6 of one core's time); the receive then waits in Rendezvous for its PUSHED
        final int half = (request.total / 2) & ~(SPLIT_ALIGNMENT - 1);
        final long split = request.total >= SPLIT_MIN && endpoint.ownCores() ? requestPush(request, source, sequence, half) : -1;
        final int mine = split < 0 ? request.total : half;
        try
        {
            windows.copy(source, chunkId, position, request.buffer, request.offset, mine);
        }
        catch (final BufferGoneException ex)
        {
            if (split >= 0)
            {
                rendezvous.abandon(split); // its PUSHED, which the sender still sends, must not reach a later receive
            }
            sends.sendAck(source, sequence, DISCARD);
            request.fail(ex);
            return;
        }
        request.received = mine;
        // NOTE: the copy's loads precede the ACK's commit (a release); the sender reuses its buffer only after
        // its acquire of the ACK
        sends.sendAck(source, sequence, COPIED);
        if (mine == request.total)
        {
            complete(request);
        }
    }

    /**
     * The one copy of a message sent from off-heap memory ({@link MessageType#PROCESS_MEMORY}): read straight out of
     * the sender's process at {@code address} into the receive's buffer, then the ACK that completes the send. A
     * rank that may not read the sender's process, or whose read fails, asks for the whole message through the
     * pipeline instead, as a RNDV's receiver that dropped its first bytes does; so does one that has found the
     * pipeline faster lately for messages of this size ({@link FasterOfTwo}), saying so
     * ({@link MessageType#STREAMED_BY_CHOICE}: its sender goes on offering reads).
     */
    private void readFromProcess(final RecvRequest request, final int source, final long sequence, final long address)
    {
        final PeerMemory reader = endpoint.peerMemory();
        final boolean read = reader != null && (readOrStream == null || readOrStream.first(request.total));
        final long start = readOrStream == null ? 0 : System.nanoTime();
        if (read && reader.read(source, address, request.buffer, request.offset, request.total))
        {
            if (readOrStream != null)
            {
                final long end = System.nanoTime();
                readOrStream.ended(true, request.total, source, start, end, 0, 0);
                readNanos += end - start;
            }
            request.received = request.total;
            // NOTE: the read precedes the ACK's commit (a release); the sender reuses its buffer only after its
            // acquire of the ACK
            sends.sendAck(source, sequence, COPIED);
            complete(request);
            return;
        }
        request.received = 0;
        final boolean chosen = reader != null && !read; // it could read this one: the pipeline was the faster lately
        request.streamedSince = chosen ? start : 0;
        if (chosen)
        {
            request.readNanosBefore = readNanos;
        }
        sends.sendAck(source, sequence, rendezvous.accept(request) | FROM_START | (chosen ? STREAMED_BY_CHOICE : 0));
    }

    /**
     * Asks the sender of a large message to copy its bytes from {@code from} on straight into the receive
     * buffer, if that is this rank's own shared buffer (PUSH): for a RNDV, one copy instead of the pipeline's
     * two; for a RGET, the sender's half of a split copy. The receive then waits in {@link Rendezvous} for
     * the sender's PUSHED.
     *
     * @return the receive's id in {@link Rendezvous}, or -1 if the receive buffer is not shared or the PUSH
     *         found no room now (the caller goes on without it).
     */
    private long requestPush(final RecvRequest request, final int source, final long sequence, final int from)
    {
        final long at = request.buffer instanceof SharedBuffer shared ? shared.sharedPosition(ownWindows, request.offset, request.total) : -1;
        if (at < 0)
        {
            return -1;
        }
        final long id = rendezvous.accept(request);
        if (!sends.trySendPush(source, sequence, id, ((SharedBuffer)request.buffer).chunkId(), at + from, from))
        {
            rendezvous.cancel(id);
            return -1;
        }
        return id;
    }

    /**
     * The sender's part of a PUSH: the bytes it names, from the send's buffer (any kind) straight into the
     * receiver's shared buffer, then PUSHED. A RNDV send is then complete; a RGET's waits for its COPIED, which
     * follows the PUSH.
     */
    private void push(final ArrivedMessage f)
    {
        final SendRequest send = rendezvous.pushed(f);
        final long chunkId = f.buffer().getLong(f.offset());
        final long position = f.buffer().getLong(f.offset() + Long.BYTES);
        final long from = f.buffer().getLong(f.offset() + 2 * Long.BYTES);
        if (f.length() != PUSH_PAYLOAD || from < 0 || from >= send.length)
        {
            throw f.protocolError("PUSH of bytes " + from + ".. of a " + send.length + "-byte message");
        }
        if (!(send.buffer instanceof SharedBuffer shared) || shared.isLive())
        {
            windows.copyInto(f.source(), chunkId, position, send.buffer, send.offset + (int)from, send.length - (int)from);
        }
        // else freed with its send pending: the receiver found it gone too and abandoned the receive; PUSHED
        // still ends that on its side
        // NOTE: the copy's stores precede PUSHED's commit (a release), which the receiver acquires before it
        // completes the receive
        sends.sendAck(f.source(), f.aux(), PUSHED);
        if (!send.shared)
        {
            rendezvous.pushedAll(send);
        }
    }

    /**
     * The target's part of a window's put or get that the origin split with it ({@link SplitCopy}): whatever
     * chunks are left when the request arrives. A request for a part that is gone (the window closed) or from a
     * buffer that is gone is late: its origin has copied everything itself.
     */
    private void help(final ArrivedMessage f)
    {
        final long length = f.aux() >>> 1;
        if (f.length() != HELP_PAYLOAD || length < SplitCopy.MIN || length > Integer.MAX_VALUE)
        {
            throw f.protocolError("a split copy of " + length + " bytes with a " + f.length() + "-byte reference");
        }
        final DirectBuffer payload = f.buffer();
        final int at = f.offset();
        final long ownChunk = payload.getLong(at + 2 * Long.BYTES);
        final long ownOffset = payload.getLong(at + 3 * Long.BYTES);
        final SharedBuffer own = ownWindows.live(ownChunk);
        if (own == null)
        {
            return;
        }
        if (ownOffset < 0 || ownOffset > own.capacity() - length)
        {
            throw f.protocolError("a split copy of bytes " + ownOffset + ".." + (ownOffset + length) + " of a " +
                own.capacity() + "-byte part");
        }
        final int copied;
        try
        {
            copied = windows.helpCopy(f.source(), payload.getLong(at), payload.getLong(at + Long.BYTES), f.sequence(), own,
                (int)ownOffset, (int)length, (f.aux() & 1) != 0);
        }
        catch (final BufferGoneException ex)
        {
            return; // late: nothing was claimed
        }
        catch (final Sm4jException ex)
        {
            // a chunk claimed and never counted would leave the origin waiting for good: end the job instead
            endpoint.job().abort("rank " + endpoint.rank() + " failed copying its part of rank " + f.source() +
                "'s split copy: " + ex.getMessage());
            throw ex;
        }
        if (copied > 0)
        {
            endpoint.wake(f.source()); // the origin may have fallen asleep waiting for the last chunk (rings only then)
        }
    }

    /**
     * @return {@code request}, a receive a FRAG completed or null; a stream its receiver chose is measured
     *         ({@link FasterOfTwo}).
     */
    private RecvRequest streamEnded(final RecvRequest request)
    {
        if (request != null && readOrStream != null)
        {
            // not counting the reads this thread made meanwhile (a window's later messages), which held the stream up
            if (request.streamedSince != 0)
            {
                readOrStream.ended(false, request.total, request.matchedSource, request.streamedSince, System.nanoTime(),
                    request.readNanosBefore, readNanos);
            }
            else
            {
                readOrStream.passed(false, request.matchedSource, System.nanoTime(), readNanos); // its sender's next stream waited for it
            }
        }
        return request;
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
        thread.enterHandler();
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
            thread.exitHandler();
        }
        request.completeFilled();
    }
}
