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
 * segment offset, with {@link #RETURN_FLAG} set when a max-size fragment goes back to its owner (eager
 * fragments come back as credits instead), or a fast box announcement: {@link #FAST_BOX_FLAG} with the
 * box's index from bit {@link #FAST_BOX_SHIFT}.
 * <pre>
 *  fragment:  | segment offset (a cacheline multiple)                       |0|0|
 *  return:    | segment offset of a max-size fragment                       |0|1|
 *  fast box:  | box index                       | 0 ...                     |1|0|
 * </pre>
 */
public final class CbIndexDescriptor
{
    public static final int HEAD_LENGTH = Long.BYTES;
    public static final int TAIL_LENGTH = Long.BYTES;
    public static final int SLOT_LENGTH = Long.BYTES;
    /** Fragment offsets are cacheline multiples, so bit 0 of a slot is free to flag a return. */
    public static final long RETURN_FLAG = 1L;
    public static final long EMPTY_SLOT = 0L;
    /** Bit 1: the word announces that the sender now sends everything to this receiver by a fast box. */
    public static final long FAST_BOX_FLAG = 2L;
    public static final int FAST_BOX_SHIFT = 8;

    private CbIndexDescriptor()
    {
    }
}
