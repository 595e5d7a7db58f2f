package io.sm4j.layout;

/**
 * One rank's slot in one communicator context's collective region, in the rank's pool region: a line of
 * words that only the rank writes, then its buffer in two halves that only it writes and every rank of the
 * communicator reads. A collective is a series of steps (numbered from 1 per communicator); in step s the
 * rank may write half {@code s & 1}, then describes the call in call record {@code s & 1} and release-stores
 * s as its step last. Readers acquire-load the step before they trust the record or the half.
 * <pre>
 *   written by the slot's rank only
 *  +---------------------------------------------------------------+ 0
 *  |              Step: the last one posted (64 bits)             ...
 *  +---------------------------------------------------------------+ 8
 *  |   call record 0: collective | length | root (3 x 32)         |
 *  +---------------------------------------------------------------+ 20
 *  |   call record 1: collective | length | root (3 x 32)         |
 *  +---------------------------------------------------------------+ 32
 *  |   inline data 0: up to 16 bytes, or a source record (even)    |
 *  +---------------------------------------------------------------+ 48
 *  |   inline data 1: up to 16 bytes, or a source record (odd)     |
 *  +---------------------------------------------------------------+ 64
 *  |                 Padding to the end of the cacheline           |
 *  +---------------------------------------------------------------+ cacheline
 *  |              half 0: bufferSize / 2 bytes (even steps)       ...
 *  +---------------------------------------------------------------+ cacheline + bufferSize / 2
 *  |              half 1: bufferSize / 2 bytes (odd steps)        ...
 *  +---------------------------------------------------------------+ cacheline + bufferSize
 * </pre>
 * A bcast, reduce or allReduce of at most {@link #INLINE_BYTES} bytes writes its data in the line, in place of
 * the half of the same parity: a reader that acquires the step then finds the record and the data in the one
 * cacheline it has just fetched, instead of fetching a second.
 * An allGather's or allToAll's step, and a bcast's of 8 KiB or more (never inline), writes a source record
 * there instead: where the rank's data of the step is. A position of -1 says in the half; else the data stays
 * in a shared buffer of the rank's ({@code Communicator.allocate}), named by its chunk id, from that payload
 * position on (the start of its data of the call), and each reader copies its part straight out of it; or,
 * with the chunk id {@link #PROCESS_MEMORY}, in off-heap memory of the rank's process, from that address on,
 * and each reader reads its part out of that process (where every rank of the communicator reads its peers'
 * processes and has found it can read every one that does: the doorbell line's abilities, {@link DoorbellDescriptor}):
 * <pre>
 *  +---------------------------------------------------------------+ inline data s
 *  |   chunk id of the rank's shared buffer, or PROCESS_MEMORY     |
 *  +---------------------------------------------------------------+ + 8
 *  |   payload position (or address) of its data of the call,     ...
 *  |   or -1 (64 bits)                                             |
 *  +---------------------------------------------------------------+ + 16
 * </pre>
 * A record's length is the call's (per rank or per block); in a gatherv, scatterv or allToAllv, whose
 * ranks do not all know it before the call, each rank posts its own (its block, the root's largest count,
 * its longest block), from which every rank learns the call's after the first step.
 * A rank posts step s only once every rank of the communicator has posted s - 1 (so no rank is more than
 * one step ahead of another): a half, its call record and its inline data or source record are rewritten
 * at s + 2 only after every reader has posted s + 1, which it does after it is done with step s.
 */
public final class CollectiveSlotDescriptor
{
    public static final int STEP_OFFSET = 0;
    public static final int CALLS_OFFSET = STEP_OFFSET + Long.BYTES;
    public static final int CALL_COLLECTIVE = 0;
    public static final int CALL_LENGTH = Integer.BYTES;
    public static final int CALL_ROOT = 2 * Integer.BYTES;
    public static final int CALL_LENGTH_BYTES = 3 * Integer.BYTES;
    public static final int INLINE_OFFSET = CALLS_OFFSET + 2 * CALL_LENGTH_BYTES;
    /** The most data a step may write in the line. */
    public static final int INLINE_BYTES = 16;
    public static final int LINE_LENGTH = INLINE_OFFSET + 2 * INLINE_BYTES;
    /** In a source record (at {@link #inlineOffset}): the chunk id of the rank's shared buffer, or {@link #PROCESS_MEMORY}. */
    public static final int SOURCE_CHUNK = 0;
    /**
     * In a source record: the payload position in that buffer of the start of the rank's data of the call (the
     * same in every step: a reader adds its block's offset and the step's), its address in the rank's process
     * for {@link #PROCESS_MEMORY}, or -1 if the data is in the half.
     */
    public static final int SOURCE_POSITION = Long.BYTES;
    /** A source record's chunk id for data in off-heap memory of the rank's process (shared buffers' ids are >= 0). */
    public static final long PROCESS_MEMORY = -1;

    private CollectiveSlotDescriptor()
    {
    }

    /**
     * @param cacheline  the layout's cacheline.
     * @param bufferSize the layout's collective buffer size.
     * @return bytes of one slot: its line and its buffer.
     */
    public static long stride(final int cacheline, final int bufferSize)
    {
        return Align.up(LINE_LENGTH, cacheline) + (long)bufferSize;
    }

    /**
     * @return offset of step {@code step}'s call record in the slot.
     */
    public static int callOffset(final long step)
    {
        return CALLS_OFFSET + (int)(step & 1) * CALL_LENGTH_BYTES;
    }

    /**
     * @return offset of step {@code step}'s inline data in the slot (in its line).
     */
    public static int inlineOffset(final long step)
    {
        return INLINE_OFFSET + (int)(step & 1) * INLINE_BYTES;
    }

    /**
     * @return offset of step {@code step}'s half in the slot.
     */
    public static int halfOffset(final int cacheline, final int bufferSize, final long step)
    {
        return (int)Align.up(LINE_LENGTH, cacheline) + (int)(step & 1) * (bufferSize / 2);
    }
}
