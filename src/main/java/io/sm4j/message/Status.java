package io.sm4j.message;

/**
 * What a receive or probe matched: source, tag and length. Read-only to applications; the library fills it.
 * A status returned by a call is never changed afterwards, except the status of a persistent request
 * ({@link Communicator#sendInit}, {@link Communicator#recvInit}), which each {@link Request#start()} reuses,
 * and a status an application passes to a receive to be filled
 * ({@link Communicator#recv(int, int, org.agrona.MutableDirectBuffer, int, int, Status)}), which lets a
 * blocking receive allocate nothing.
 */
public final class Status
{
    private int source;
    private int tag;
    private int length;

    /**
     * An empty status, to pass to a receive that fills it.
     */
    public Status()
    {
    }

    /**
     * @param source the sending rank.
     * @param tag    the message's tag.
     * @param length the message's length in bytes.
     */
    public Status(final int source, final int tag, final int length)
    {
        set(source, tag, length);
    }

    Status set(final int source, final int tag, final int length)
    {
        this.source = source;
        this.tag = tag;
        this.length = length;
        return this;
    }

    /**
     * Sets an envelope as the wire carries it (a world rank, a tag in its context) in the ranks and tags of the
     * communicator {@code naming} stands for (null: the world's, whose are the wire's).
     */
    Status setFromWire(final Naming naming, final int source, final int tag, final int length)
    {
        return naming == null ? set(source, tag, length) : set(naming.localRank(source), naming.userTag(tag), length);
    }

    /**
     * @return the sending rank.
     */
    public int source()
    {
        return source;
    }

    /**
     * @return the message's tag.
     */
    public int tag()
    {
        return tag;
    }

    /**
     * @return the message's length in bytes.
     */
    public int length()
    {
        return length;
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof Status that && source == that.source && tag == that.tag && length == that.length;
    }

    @Override
    public int hashCode()
    {
        return (source * 31 + tag) * 31 + length;
    }

    @Override
    public String toString()
    {
        return "Status[source=" + source + ", tag=" + tag + ", length=" + length + "]";
    }
}
