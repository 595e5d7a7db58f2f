package io.sm4j.message;

/**
 * The message layer's header, at the start of every transport payload (after the transport's own
 * {@link io.sm4j.layout.FragmentDescriptor} header of length and sender). An EAGER message carries only the
 * match header (ob1's match header: type and tag; the pair's FIFO or fast box keeps the order, so it needs no
 * sequence); every other type carries the full header. Written by the sender straight into the claimed
 * shared memory; read once, and checked, by {@link ArrivedMessage}, but for a blocking receive's looks at its
 * source ({@link DirectReceive}), which read an EAGER message's type and tag themselves and leave every other
 * message, checks included, to {@link ArrivedMessage}.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+  0
 *  |                     Type ({@link MessageType})                |
 *  +---------------------------------------------------------------+  4
 *  |     Tag (users' >= 0, collectives' < -1; 0 but for RNDV, RGET) |
 *  +---------------------------------------------------------------+  8   EAGER: payload from here
 *  |                     Sequence (64 bits)                       ...
 *  +---------------------------------------------------------------+ 16
 *  |                Auxiliary word (64 bits)                      ...
 *  +---------------------------------------------------------------+ 24
 *  |                          Payload                             ...
 *  +---------------------------------------------------------------+
 * </pre>
 * The meaning of sequence and aux per type is in {@link MessageType}.
 */
final class MessageHeaderDescriptor
{
    static final int TYPE_OFFSET = 0;
    static final int TAG_OFFSET = TYPE_OFFSET + Integer.BYTES;
    /** Length of an EAGER message's header: its payload starts here. */
    static final int MATCH_HEADER_LENGTH = TAG_OFFSET + Integer.BYTES;
    static final int SEQUENCE_OFFSET = MATCH_HEADER_LENGTH;
    static final int AUX_OFFSET = SEQUENCE_OFFSET + Long.BYTES;
    /** Length of the header of every type but EAGER. */
    static final int HEADER_LENGTH = AUX_OFFSET + Long.BYTES;

    private MessageHeaderDescriptor()
    {
    }

    /**
     * @return the header length of a message of {@code type}.
     */
    static int headerLength(final int type)
    {
        return type == MessageType.EAGER ? MATCH_HEADER_LENGTH : HEADER_LENGTH;
    }
}
