package io.sm4j.layout;

/**
 * The FIFO descriptor of one ordered pair s -> r (Open MPI's {@code ompi_fifo_t}). Written once by the
 * segment creator, read by both ends; it names the circular buffer the pair uses.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                         Sender rank                           |
 *  +---------------------------------------------------------------+
 *  |                        Receiver rank                          |
 *  +---------------------------------------------------------------+
 *  |                  CB wrapper offset (64 bits)                 ...
 *  ...                                                             |
 *  +---------------------------------------------------------------+
 * </pre>
 * Open MPI kept per-FIFO locks here. In sm4j a head is written only by threads of its sending process and
 * a tail only by threads of its receiving process, so those locks are process-local and the descriptor is
 * read-only after creation.
 */
public final class FifoDescriptor
{
    public static final int SENDER_OFFSET = 0;
    public static final int RECEIVER_OFFSET = SENDER_OFFSET + Integer.BYTES;
    public static final int WRAPPER_OFFSET = RECEIVER_OFFSET + Integer.BYTES;
    public static final int LENGTH = WRAPPER_OFFSET + Long.BYTES;

    private FifoDescriptor()
    {
    }
}
