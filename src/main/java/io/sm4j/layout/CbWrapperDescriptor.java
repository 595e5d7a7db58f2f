package io.sm4j.layout;

/**
 * The wrapper of one circular buffer (Open MPI's {@code ompi_cb_fifo_wrapper_t}): where the CB's queue,
 * head and tail are. Written once by the segment creator, then only read, by sender and receiver; it
 * must not share a cacheline with a head or tail.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                    Queue offset (64 bits)                    ...
 *  ...                                                             |
 *  +---------------------------------------------------------------+
 *  |                     Head offset (64 bits)                    ...
 *  ...                                                             |
 *  +---------------------------------------------------------------+
 *  |                     Tail offset (64 bits)                    ...
 *  ...                                                             |
 *  +---------------------------------------------------------------+
 *  |                        Queue entries                          |
 *  +---------------------------------------------------------------+
 *  |                         Sender rank                           |
 *  +---------------------------------------------------------------+
 *  |                        Receiver rank                          |
 *  +---------------------------------------------------------------+
 *  |                          Reserved                             |
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class CbWrapperDescriptor
{
    public static final int QUEUE_OFFSET = 0;
    public static final int HEAD_OFFSET = QUEUE_OFFSET + Long.BYTES;
    public static final int TAIL_OFFSET = HEAD_OFFSET + Long.BYTES;
    public static final int ENTRIES_OFFSET = TAIL_OFFSET + Long.BYTES;
    public static final int SENDER_OFFSET = ENTRIES_OFFSET + Integer.BYTES;
    public static final int RECEIVER_OFFSET = SENDER_OFFSET + Integer.BYTES;
    public static final int LENGTH = RECEIVER_OFFSET + Integer.BYTES + Integer.BYTES;

    private CbWrapperDescriptor()
    {
    }
}
