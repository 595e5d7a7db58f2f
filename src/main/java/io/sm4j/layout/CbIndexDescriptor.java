package io.sm4j.layout;

/**
 * The head and the tail of one circular buffer: each a single 64-bit position counter. The head (next
 * slot to fill) is written only by the sender's process, the tail (next slot to read) only by the
 * receiver's, which is why the aggregated layout places a rank's out-bound heads beside its in-bound
 * tails.
 * <pre>
 *  head:  |              Sender position (64 bits, counts slots)            |
 *  tail:  |             Receiver position (64 bits, counts slots)           |
 * </pre>
 * Queue slot {@code position & (entries - 1)} holds a 64-bit word: 0 when free, otherwise a fragment's
 * segment offset with {@link #RETURN_FLAG} set when the fragment goes back to its owner.
 */
public final class CbIndexDescriptor
{
    public static final int HEAD_LENGTH = Long.BYTES;
    public static final int TAIL_LENGTH = Long.BYTES;
    public static final int SLOT_LENGTH = Long.BYTES;
    /** Fragment offsets are cacheline multiples, so bit 0 of a slot is free to flag a return. */
    public static final long RETURN_FLAG = 1L;
    public static final long EMPTY_SLOT = 0L;

    private CbIndexDescriptor()
    {
    }
}
