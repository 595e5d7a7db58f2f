package io.sm4j.message;

import io.sm4j.job.RankCounters;
import io.sm4j.segment.Buffers;
import io.sm4j.segment.NativeCopy;
import io.sm4j.transport.Endpoint;
import io.sm4j.transport.SendClaim;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import static io.sm4j.message.MessageHeaderDescriptor.*;
import static io.sm4j.message.MessageType.*;

/**
 * Writes the message layer's messages straight into the room the transport claims for them
 * ({@link SendClaim}): header ({@link MessageHeaderDescriptor}), then payload, then commit, so the payload is
 * copied once, from the caller's buffer to the memory the receiver reads. Nothing here waits: every method
 * returns false when the receiver has no room. One per communicator (one thread).
 */
final class MessageSender
{
    private static final DirectBuffer NO_PAYLOAD = new UnsafeBuffer(new byte[0]);

    private final Endpoint endpoint;
    private final RankCounters counters;
    private final SendClaim claim = new SendClaim();
    /** A RGET's, PUSH's or HELP's payload, written before each one is sent. */
    private final UnsafeBuffer reference = new UnsafeBuffer(new byte[HELP_PAYLOAD]);

    MessageSender(final Endpoint endpoint)
    {
        this.counters = endpoint.counters();
        this.endpoint = endpoint;
    }

    /**
     * @return the largest message that travels EAGER, in one fragment or fast box record.
     */
    int eagerPayload()
    {
        return endpoint.maxPayload() - MATCH_HEADER_LENGTH;
    }

    /**
     * @return the bytes of a large message its RNDV carries.
     */
    int rendezvousPayload()
    {
        return endpoint.maxPayload() - HEADER_LENGTH;
    }

    /**
     * @return the bytes of a large message one FRAG carries.
     */
    int fragPayload()
    {
        return endpoint.maxFragmentPayload() - HEADER_LENGTH;
    }

    boolean trySendEager(final int dest, final int tag, final DirectBuffer payload, final int offset, final int length)
    {
        return trySend(dest, false, true, EAGER, tag, 0, 0, payload, offset, length);
    }

    /**
     * @param total  the message's length.
     * @param length the bytes this RNDV carries, at most {@link #rendezvousPayload()}.
     */
    boolean trySendRendezvous(
        final int dest, final int tag, final long sequence, final long total, final DirectBuffer payload,
        final int offset, final int length)
    {
        return trySend(dest, false, true, RNDV, tag, sequence, total, payload, offset, length);
    }

    /**
     * A large message from a shared buffer: the receiver copies it from there ({@link MessageType#RGET}).
     *
     * @param total    the message's length.
     * @param position where in buffer {@code chunkId}'s payload the message starts.
     */
    boolean trySendShared(
        final int dest, final int tag, final long sequence, final long total, final long chunkId, final long position)
    {
        reference.putLong(0, chunkId);
        reference.putLong(Long.BYTES, position);
        return trySend(dest, false, true, RGET, tag, sequence, total, reference, 0, RGET_PAYLOAD);
    }

    /**
     * Asks the sender of RGET {@code sequence} to copy its bytes from {@code from} on into this rank's shared
     * buffer {@code chunkId} at {@code position} ({@link MessageType#PUSH}).
     */
    boolean trySendPush(
        final int dest, final long sequence, final long receiveId, final long chunkId, final long position, final long from)
    {
        reference.putLong(0, chunkId);
        reference.putLong(Long.BYTES, position);
        reference.putLong(2 * Long.BYTES, from);
        return trySend(dest, false, false, PUSH, 0, sequence, receiveId, reference, 0, PUSH_PAYLOAD);
    }

    /**
     * Asks {@code dest} to take chunks of a window's put ({@code get} false) or get of {@code length} bytes
     * between this rank's shared buffer {@code chunkId} at {@code position} and {@code dest}'s part
     * {@code targetChunkId} at {@code targetOffset} ({@link MessageType#HELP}).
     */
    boolean trySendHelp(
        final int dest, final long sequence, final boolean get, final int length, final long chunkId,
        final long position, final long targetChunkId, final long targetOffset)
    {
        reference.putLong(0, chunkId);
        reference.putLong(Long.BYTES, position);
        reference.putLong(2 * Long.BYTES, targetChunkId);
        reference.putLong(3 * Long.BYTES, targetOffset);
        return trySend(dest, false, false, HELP, 0, sequence, (long)length << 1 | (get ? 1 : 0), reference, 0, HELP_PAYLOAD);
    }

    boolean trySendAck(final int dest, final long sequence, final long receiveId)
    {
        return trySend(dest, false, false, ACK, 0, sequence, receiveId, NO_PAYLOAD, 0, 0);
    }

    /**
     * Sends one chunk of a large message in a max-size fragment.
     *
     * @return false when the max pool is empty or {@code dest}'s fast box is full.
     */
    boolean trySendFrag(
        final int dest, final long position, final long receiveId, final DirectBuffer payload, final int offset,
        final int length)
    {
        return trySend(dest, true, false, FRAG, 0, position, receiveId, payload, offset, length);
    }

    boolean trySendBarrier(final int dest, final long epoch)
    {
        return trySend(dest, false, false, BARRIER, 0, epoch, 0, NO_PAYLOAD, 0, 0);
    }

    /**
     * @param max     a max-size fragment (a FRAG).
     * @param matched a message a receive matches ({@link MessageType#matched}: EAGER, RNDV, RGET).
     */
    private boolean trySend(
        final int dest, final boolean max, final boolean matched, final int type, final int tag, final long sequence,
        final long aux, final DirectBuffer payload, final int offset, final int length)
    {
        // MessageHeaderDescriptor.headerLength, spelt here: a small message's path does not enter that class
        // (PathTraceTest counts the classes it enters)
        final int header = type == EAGER ? MATCH_HEADER_LENGTH : HEADER_LENGTH;
        // a message a receive matches may be declined by its receiver's budget; the others must not wait behind it
        final int claimed = max ? endpoint.tryClaimMax(dest, header + length, claim) :
            matched ? endpoint.tryClaimDeclinable(dest, header + length, claim) : endpoint.tryClaimUrgent(dest, header + length, claim);
        if (claimed != Endpoint.CLAIMED)
        {
            if (claimed == Endpoint.PEER_GONE)
            {
                throw endpoint.job().peerGone(dest); // the job's abort, if any, is the cause to report
            }
            return false; // no room yet: retried after a pass
        }
        try
        {
            try
            {
                final MutableDirectBuffer buffer = claim.buffer();
                buffer.putInt(TYPE_OFFSET, type);
                buffer.putInt(TAG_OFFSET, tag);
                if (header == HEADER_LENGTH)
                {
                    buffer.putLong(SEQUENCE_OFFSET, sequence);
                    buffer.putLong(AUX_OFFSET, aux);
                }
                if (length < NativeCopy.MIN_BYTES)
                {
                    // as NativeCopy.putBytes would: a small message's path does not enter NativeCopy (PathTraceTest counts it)
                    Buffers.putBytes(buffer, header, payload, offset, length);
                }
                else
                {
                    NativeCopy.putBytes(buffer, header, payload, offset, length);
                }
                if (matched)
                {
                    // before the commit, which leaves the endpoint's gate: a close from another thread cannot unmap
                    counters.messageSent(type == EAGER ? length : aux); // a large message's aux is its length
                }
                claim.commit();
                return true;
            }
            catch (final InternalError error)
            {
                // the JVM's copy, or a header store, faulted: the file was truncated (NativeCopy's memcpy cannot fault
                // so: a SIGBUS in native code ends the JVM, which is why it is opt-in)
                throw endpoint.fault(error);
            }
            finally
            {
                abortIfClaimed();
            }
        }
        catch (final InternalError late)
        {
            // a fault is thrown at a safepoint poll a little after its access, so a second one (the abort in the
            // finally above, run because of the first) can surface inside the handler above, escaping it: the
            // exposure ProgressEngine.waitFor closes too (docs/reliability.md)
            throw endpoint.fault(late);
        }
    }

    /**
     * A write that threw (a caller's buffer shrank under it) must not keep the room, nor the lock.
     */
    private void abortIfClaimed()
    {
        if (claim.isClaimed())
        {
            claim.abort();
        }
    }
}
