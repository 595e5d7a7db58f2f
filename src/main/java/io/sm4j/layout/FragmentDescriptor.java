package io.sm4j.layout;

/**
 * The header at the start of every fragment (eager or max-size). Written by the fragment's owner (the
 * sender) before it publishes the fragment's offset; read by the receiver after its acquire load of the
 * queue slot. Every field is untrusted on the receiving side and checked before use.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+  0
 *  |                        Payload length                         |
 *  +---------------------------------------------------------------+  4
 *  |                         Sender rank                           |
 *  +---------------------------------------------------------------+  8
 *  |                 Type (message layer's protocol)               |
 *  +---------------------------------------------------------------+ 12
 *  |                            Tag                                |
 *  +---------------------------------------------------------------+ 16
 *  |                     Sequence (64 bits)                       ...
 *  +---------------------------------------------------------------+ 24
 *  |          Auxiliary word (64 bits, message layer's use)       ...
 *  +---------------------------------------------------------------+ 32
 *  |                          Payload                             ...
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class FragmentDescriptor
{
    public static final int LENGTH_OFFSET = 0;
    public static final int SENDER_OFFSET = LENGTH_OFFSET + Integer.BYTES;
    public static final int TYPE_OFFSET = SENDER_OFFSET + Integer.BYTES;
    public static final int TAG_OFFSET = TYPE_OFFSET + Integer.BYTES;
    public static final int SEQUENCE_OFFSET = TAG_OFFSET + Integer.BYTES;
    public static final int AUX_OFFSET = SEQUENCE_OFFSET + Long.BYTES;
    public static final int HEADER_LENGTH = AUX_OFFSET + Long.BYTES;

    private FragmentDescriptor()
    {
    }
}
