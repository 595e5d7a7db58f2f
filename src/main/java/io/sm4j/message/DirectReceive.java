package io.sm4j.message;

import io.sm4j.job.RankCounters;
import io.sm4j.segment.Buffers;
import io.sm4j.transport.FragmentHandler;
import io.sm4j.transport.FragmentView;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import static io.sm4j.message.MessageHeaderDescriptor.MATCH_HEADER_LENGTH;
import static io.sm4j.message.MessageHeaderDescriptor.TAG_OFFSET;
import static io.sm4j.message.MessageHeaderDescriptor.TYPE_OFFSET;

/**
 * A blocking receive's first looks, when it names its source (its tag may be a wildcard) and nothing else waits
 * to be matched: the source's in-bound path alone is polled, and the eager message at its head is copied
 * straight into the receive's buffer if it is one the receive takes. No request is posted, so nothing is matched, queued or completed
 * for it (Open MPI's ob1 takes the same shortcut for a send, through a BTL's {@code sendi}).
 * <p>
 * It is the receive the general path would make: with no receive posted and no message queued, an arriving
 * message from the source either matches this one or is queued as unexpected, and the pair's path is in send
 * order. Anything else at the head (a tag it does not take, a large message, a control message, a payload longer than
 * the buffer) is declined: it stays in shared memory, and the receive goes the general way, whose next pass
 * takes it. Messages of other sources wait in shared memory for that pass too.
 * Not thread-safe: one per communicator's engine (SINGLE thread mode).
 */
final class DirectReceive implements FragmentHandler
{
    private final RankCounters counters;
    private int tag;
    private MutableDirectBuffer buffer;
    private int offset;
    private int capacity;
    /** Payload bytes of the message taken, or -1. */
    private int received;
    /** The wire tag of the message taken (the one wanted, or one its wildcard accepts). */
    private int receivedTag;
    /** The source's head was seen and declined: the general path takes it from here. */
    private boolean declined;

    DirectReceive(final RankCounters counters)
    {
        this.counters = counters;
    }

    /**
     * Aims the next looks at a message with wire tag {@code tag} (or one this wildcard accepts:
     * {@link Contexts#accepts}), into {@code capacity} bytes at {@code offset} of {@code buffer}.
     */
    DirectReceive aim(final int tag, final MutableDirectBuffer buffer, final int offset, final int capacity)
    {
        this.tag = tag;
        this.buffer = buffer;
        this.offset = offset;
        this.capacity = capacity;
        received = -1;
        declined = false;
        return this;
    }

    /**
     * @return the payload bytes received, or -1.
     */
    int received()
    {
        return received;
    }

    /**
     * @return the wire tag of the message taken ({@link #received()} not -1).
     */
    int receivedTag()
    {
        return receivedTag;
    }

    /**
     * @return true once a look found another message at the source's head.
     */
    boolean declined()
    {
        return declined;
    }

    /**
     * Lets go of the caller's buffer (the looks are over): it is not kept alive.
     */
    void release()
    {
        buffer = null;
    }

    @Override
    public boolean accepts(final FragmentView fragment)
    {
        final DirectBuffer from = fragment.buffer();
        final int start = fragment.offset();
        final int total = fragment.length();
        // NOTE: each word read once: the sender can still write there (a protocol error is the general path's).
        // Once declined, always: what follows a declined message from the source must not overtake it.
        if (declined || total < MATCH_HEADER_LENGTH || from.getInt(start + TYPE_OFFSET) != MessageType.EAGER)
        {
            declined = true;
            return false;
        }
        receivedTag = from.getInt(start + TAG_OFFSET);
        // a user's tag (>= 0) takes its own alone (Contexts.accepts, entered for a wildcard only)
        declined = (tag >= 0 ? tag != receivedTag : !Contexts.accepts(tag, receivedTag)) || total - MATCH_HEADER_LENGTH > capacity;
        return !declined;
    }

    @Override
    public void onFragment(final FragmentView fragment)
    {
        final int length = fragment.length() - MATCH_HEADER_LENGTH;
        counters.messageReceived(length); // inside the poll, and so inside the endpoint's gate
        Buffers.putBytes(buffer, offset, fragment.buffer(), fragment.offset() + MATCH_HEADER_LENGTH, length);
        received = length;
    }
}
