package io.sm4j.transport;

import io.sm4j.fifo.FastBoxProducer;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Room for one message in shared memory, claimed with {@link Endpoint#tryClaim} or
 * {@link Endpoint#tryClaimMax} (after Agrona's {@code BufferClaim}): the caller writes the payload in place
 * through {@link #buffer()}, then {@link #commit()}s it (publishes it to the receiver) or {@link #abort()}s
 * it. The payload is written once, straight into the fast box record or fragment the receiver reads.
 * <p>
 * A claim holds its destination's send lock in {@link io.sm4j.layout.ThreadMode#MULTIPLE} mode, and in every
 * mode it holds the room: write, then commit or abort at once, without waiting on anything. One claim serves
 * one message at a time and is reused for the next; it is not thread-safe.
 */
public final class SendClaim
{
    private static final byte[] NO_BYTES = new byte[0];

    private final UnsafeBuffer buffer = new UnsafeBuffer(NO_BYTES);
    /** Non-null while this claim holds room. */
    private Publication publication;
    /** The box the record is in, or null for a fragment published through the FIFO. */
    FastBoxProducer box;
    /** The record's index in the box. */
    int index;
    /** The fragment the payload is in, or -1 for an inline record. */
    long fragment;
    boolean max;

    void claimed(
        final Publication publication, final FastBoxProducer box, final int index, final long fragment,
        final boolean max, final DirectBuffer memory, final int payloadIndex, final int length)
    {
        this.publication = publication;
        this.box = box;
        this.index = index;
        this.fragment = fragment;
        this.max = max;
        buffer.wrap(memory, payloadIndex, length);
    }

    /**
     * @return the claimed payload bytes, from index 0 to {@link #length()}: write them, do not read them
     * (they are not cleared). Valid until {@link #commit()} or {@link #abort()}.
     */
    public MutableDirectBuffer buffer()
    {
        return buffer;
    }

    /**
     * @return the claimed payload length.
     */
    public int length()
    {
        return buffer.capacity();
    }

    /**
     * @return true between a successful claim and its commit or abort.
     */
    public boolean isClaimed()
    {
        return publication != null;
    }

    /**
     * Publishes the message: the receiver sees the payload as written (release), and this claim is free.
     */
    public void commit()
    {
        final Publication holder = holder();
        try
        {
            holder.commit(this);
        }
        finally
        {
            free();
        }
    }

    /**
     * Gives the room back unsent: the receiver sees nothing.
     */
    public void abort()
    {
        final Publication holder = holder();
        try
        {
            holder.abort(this);
        }
        finally
        {
            free();
        }
    }

    void checkFree()
    {
        if (publication != null)
        {
            throw new IllegalStateException("this claim still holds " + length() + " bytes to rank " + publication.dest() +
                ": commit or abort it first");
        }
    }

    private Publication holder()
    {
        if (publication == null)
        {
            throw new IllegalStateException("nothing claimed: commit and abort follow a successful tryClaim");
        }
        return publication;
    }

    private void free()
    {
        publication = null;
        box = null;
        buffer.wrap(NO_BYTES); // do not keep the mapping reachable through an idle claim
    }
}
