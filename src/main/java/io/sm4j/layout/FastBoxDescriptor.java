package io.sm4j.layout;

/**
 * One fast box: a per-pair ring of records from one sender to one receiver, in the receiver's CB region,
 * claimed lazily by the sender (after Open MPI vader's fast boxes and MPICH nemesis' fastbox). A small
 * message travels in the ring itself, header and payload in the same cache lines, so it needs no fragment,
 * no queue slot and no return; a larger one travels as a reference to one of the sender's fragments. Once a
 * sender uses a fast box, every message it sends to that receiver goes through it, so one ring keeps the
 * pair's order.
 * <pre>
 *  receiver r's fast boxes (after its CB wrappers, each group on a cacheline boundary):
 *  +---------------------------------------------------------------+
 *  | directory: owner of box 0 .. k-1, 32 bits each: sender + 1,    |
 *  |            0 while free (claimed with a CAS by the sender)     |
 *  +---------------------------------------------------------------+ cacheline boundary
 *  | box 0: consumed position (64 bits, written by r only) | pad   |  one cacheline
 *  |        ring: fastBoxSize bytes of records                      |
 *  | box 1: ...                                                     |
 *  +---------------------------------------------------------------+
 *
 *  a record, 8-byte aligned, never across the ring's end:
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-------------------------------+-------------------------------+  0
 *  | Code, written last with the   | Sequence: the record's number |
 *  | sequence (release): 1..0xFFFD | in the ring, mod 2^16 (padding|
 *  | inline, payload length + 1;   | records count too)            |
 *  | REFERENCE; PADDING: skip to   |                               |
 *  | the ring's end                |                               |
 *  +-------------------------------+-------------------------------+  4
 *  | inline: the sender at 4, then the payload at 8 (the shape of  |
 *  |         a FragmentDescriptor header, code in place of length)  |
 *  | reference (16 bytes): the fragment's segment offset at 8       |
 *  +---------------------------------------------------------------+
 * </pre>
 * The receiver never writes into the ring (Open MPI vader's scheme): a commit word is a new record only if
 * its sequence is the next one the receiver expects, and before committing a record the sender clears the
 * commit word where the next record will start whenever that spot has been consumed (it may lie inside an
 * old record's payload, which must never be read as a commit word). When it has not been consumed, it is
 * where the receiver stood, a record's start, whose old commit word carries an older sequence. A ring holds
 * at most {@code MAX_FAST_BOX_SIZE} / 8 = 2^15 records (8 bytes: the smallest record, an empty inline message
 * or a padding record), so an old sequence never equals the expected one mod 2^16.
 */
public final class FastBoxDescriptor
{
    public static final int OWNER_LENGTH = Integer.BYTES;
    public static final int CONSUMED_OFFSET = 0;
    public static final int COMMIT_OFFSET = 0;
    public static final int REFERENCE_OFFSET = Long.BYTES;
    public static final int REFERENCE_LENGTH = REFERENCE_OFFSET + Long.BYTES;
    public static final int RECORD_ALIGNMENT = Long.BYTES;
    /** Code of a reference record. */
    public static final int REFERENCE = 0xFFFF;
    /** Code of padding to the ring's end. */
    public static final int PADDING = 0xFFFE;
    private static final int CODE_MASK = 0xFFFF;
    private static final int SEQUENCE_SHIFT = 16;
    /** A directory entry no sender owns. */
    public static final int FREE = 0;

    private FastBoxDescriptor()
    {
    }

    /**
     * @return the bytes an inline record of {@code payload} bytes takes in the ring.
     */
    public static int inlineRecordLength(final int payload)
    {
        // a mask: an inline payload is at most an eighth of a ring (at most MAX_FAST_BOX_SIZE), nowhere near overflow
        return (FragmentDescriptor.HEADER_LENGTH + payload + RECORD_ALIGNMENT - 1) & -RECORD_ALIGNMENT;
    }

    /**
     * @return the code of an inline record of {@code payload} bytes: below {@link #PADDING}, since an inline
     * payload is at most an eighth of a ring of at most {@code LayoutParams.MAX_FAST_BOX_SIZE} bytes.
     */
    public static int inlineCode(final int payload)
    {
        return payload + 1;
    }

    /**
     * @return the payload bytes of an inline record of code {@code code} (1 .. {@link #PADDING} - 1).
     */
    public static int inlinePayload(final int code)
    {
        return code - 1;
    }

    /**
     * @return the commit word of the {@code sequence}-th record of a ring, of code {@code code}.
     */
    public static int commitWord(final long sequence, final int code)
    {
        return (int)(sequence << SEQUENCE_SHIFT) | code;
    }

    /**
     * @return the code of {@code word} if it commits the {@code sequence}-th record, else 0 (not yet written).
     */
    public static int codeIfSequence(final int word, final long sequence)
    {
        return (word >>> SEQUENCE_SHIFT) == (int)(sequence & CODE_MASK) ? word & CODE_MASK : 0;
    }

    /**
     * @return the bytes of one box: its consumed-position line, then its ring, padded to whole cachelines (a ring
     *         smaller than a line, 1 KiB under a 2 KiB line, would leave the next box's consumed word, which its
     *         receiver writes, in a line its sender writes).
     */
    public static long stride(final int cacheline, final int fastBoxSize)
    {
        return (long)cacheline + Align.up(fastBoxSize, cacheline);
    }
}
