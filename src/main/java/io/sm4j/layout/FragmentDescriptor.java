package io.sm4j.layout;

/**
 * The transport header at the start of every fragment (eager or max-size): the payload's length and the
 * sender, nothing of the message layer (whose own header, if any, is the start of the payload). Written by
 * the fragment's owner (the sender) before it publishes the fragment's offset; read by the receiver after its
 * acquire load of the queue slot or fast box record. Every field is untrusted on the receiving side and
 * checked before use. A fast box's inline record has the same shape, its commit word in place of the length.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+  0
 *  |                        Payload length                         |
 *  +---------------------------------------------------------------+  4
 *  |                         Sender rank                           |
 *  +---------------------------------------------------------------+  8
 *  |                          Payload                             ...
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class FragmentDescriptor
{
    public static final int LENGTH_OFFSET = 0;
    public static final int SENDER_OFFSET = LENGTH_OFFSET + Integer.BYTES;
    public static final int HEADER_LENGTH = SENDER_OFFSET + Integer.BYTES;

    private FragmentDescriptor()
    {
    }
}
