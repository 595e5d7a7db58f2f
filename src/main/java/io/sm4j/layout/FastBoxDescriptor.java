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
 *  +---------------------------------------------------------------+  0
 *  | Commit word, written last (release): 0 not yet written,        |
 *  |  > 0 inline message of (word - 1) payload bytes,               |
 *  |  REFERENCE: a fragment of the sender, PADDING: skip to the end |
 *  +---------------------------------------------------------------+  4
 *  | inline: sender, type, tag, sequence, aux at FragmentDescriptor |
 *  |         offsets, then the payload at HEADER_LENGTH             |
 *  | reference (16 bytes): the fragment's segment offset at 8       |
 *  +---------------------------------------------------------------+
 * </pre>
 * The receiver zeroes every record it has consumed before it publishes the consumed position (release), so
 * the sender, once its acquire load of that position shows room, writes only over zeroes, and a commit word
 * the receiver finds non-zero is always a new record.
 */
public final class FastBoxDescriptor
{
    public static final int OWNER_LENGTH = Integer.BYTES;
    public static final int CONSUMED_OFFSET = 0;
    public static final int COMMIT_OFFSET = 0;
    public static final int REFERENCE_OFFSET = Long.BYTES;
    public static final int REFERENCE_LENGTH = REFERENCE_OFFSET + Long.BYTES;
    public static final int RECORD_ALIGNMENT = Long.BYTES;
    public static final int REFERENCE = -1;
    public static final int PADDING = -2;
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
        return (int)Align.up(FragmentDescriptor.HEADER_LENGTH + payload, RECORD_ALIGNMENT);
    }

    /**
     * @return the commit word of an inline record of {@code payload} bytes.
     */
    public static int inlineCommitWord(final int payload)
    {
        return payload + 1;
    }

    /**
     * @return the payload bytes of an inline record whose commit word is {@code word} (> 0).
     */
    public static int inlinePayload(final int word)
    {
        return word - 1;
    }

    /**
     * @return the bytes of one box: its consumed-position line, then its ring.
     */
    public static long stride(final int cacheline, final int fastBoxSize)
    {
        return (long)cacheline + fastBoxSize;
    }
}
