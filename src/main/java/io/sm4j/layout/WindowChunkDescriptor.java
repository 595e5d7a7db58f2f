package io.sm4j.layout;

/**
 * A shared buffer's file: one per {@code allocate} of a rank (and per rank's part of a window), beside the
 * segment, outside the segment's exact layout. The owner creates it, writes the header, then release-stores LIVE; on free it release-stores
 * FREED before it removes the file. A peer that copies from it maps it once and keeps the mapping (the
 * seeds' "leave pinned"); chunk ids are never reused within a job, so a kept mapping can never show another
 * buffer's bytes, and the state word tells a peer a kept mapping is of a buffer that is gone.
 * Every field is untrusted on the peer's side and checked before use.
 * <pre>
 *   written once by the owner (the state again at free)
 *  +---------------------------------------------------------------+ 0
 *  |   Magic "sm4jwin1" (64 bits)                                  |
 *  +---------------------------------------------------------------+ 8
 *  |   Owner rank (32 bits)        |   Reserved (32 bits)          |
 *  +---------------------------------------------------------------+ 16
 *  |   Chunk id (64 bits: the owner's count of its allocations)    |
 *  +---------------------------------------------------------------+ 24
 *  |   Payload length in bytes (64 bits)                           |
 *  +---------------------------------------------------------------+ 32
 *  |   State: 0 while being made, LIVE 1, FREED 2 (64 bits)        |
 *  +---------------------------------------------------------------+ 40
 *  |                 Padding to the next line pair                ...
 *  +---------------------------------------------------------------+ 128
 *   written by every rank that locks the buffer as a window's part (fetch-and-add, ordered stores)
 *  +---------------------------------------------------------------+ 128
 *  |   Lock counter: the next ticket (64 bits)                     |
 *  +---------------------------------------------------------------+ 136
 *  |   Lock write: tickets done, exclusive locks wait for it       |
 *  +---------------------------------------------------------------+ 144
 *  |   Lock read: tickets admitted, shared locks wait for it       |
 *  +---------------------------------------------------------------+ 152
 *  |                 Padding to the next line                     ...
 *  +---------------------------------------------------------------+ 192
 *   a copy shared with a peer, of bytes of this buffer (SplitCopy): the owner opens it, both claim chunks
 *  +---------------------------------------------------------------+ 192
 *  |   Claim: copy sequence (32 bits) | chunks claimed (32 bits)   |
 *  +---------------------------------------------------------------+ 200
 *  |   Helped: copy sequence (32 bits) | chunks the helper copied  |
 *  +---------------------------------------------------------------+ 208
 *  |                 Padding to PAYLOAD_OFFSET                    ...
 *  +---------------------------------------------------------------+ 256
 *  |                 Payload (the user's bytes)                   ...
 *  +---------------------------------------------------------------+ PAYLOAD_OFFSET + length, up to a page
 * </pre>
 * The lock is Open MPI osc/sm's reader-writer ticket lock ({counter, write, read}, after Mellor-Crummey and
 * Scott): a locker takes a ticket from the counter; an exclusive one enters when write reaches its ticket,
 * a shared one when read does, and then admits the next ticket (read + 1); an exclusive unlock advances both,
 * a shared unlock advances write. Each 128-byte line pair has one kind of writer: the owner's header, the
 * peers' words (lockers' and a helper's: a buffer whose copies peers help with is an origin's buffer,
 * which is rarely also a locked part), the payload.
 */
public final class WindowChunkDescriptor
{
    /** "sm4jwin1" in ASCII, little-endian as Agrona's buffers store it. */
    public static final long MAGIC = 0x316e69776a346d73L;
    public static final long LIVE = 1;
    public static final long FREED = 2;

    public static final int MAGIC_OFFSET = 0;
    public static final int OWNER_OFFSET = MAGIC_OFFSET + Long.BYTES;
    public static final int CHUNK_ID_OFFSET = OWNER_OFFSET + Long.BYTES;
    public static final int LENGTH_OFFSET = CHUNK_ID_OFFSET + Long.BYTES;
    public static final int STATE_OFFSET = LENGTH_OFFSET + Long.BYTES;
    public static final int LOCK_COUNTER_OFFSET = 128;
    public static final int LOCK_WRITE_OFFSET = LOCK_COUNTER_OFFSET + Long.BYTES;
    public static final int LOCK_READ_OFFSET = LOCK_WRITE_OFFSET + Long.BYTES;
    public static final int HELP_CLAIM_OFFSET = 192;
    public static final int HELP_DONE_OFFSET = HELP_CLAIM_OFFSET + Long.BYTES;
    /** The payload starts on a line pair of its own: neither the header's nor the lock's lines are the user's. */
    public static final int PAYLOAD_OFFSET = 256;
    /** The page the file's length is rounded up to. */
    public static final int PAGE = 4096;
    /** The largest payload: one mapping (a Java buffer's int capacity), less the header, in whole pages. */
    public static final int MAX_PAYLOAD = (Integer.MAX_VALUE / PAGE) * PAGE - PAYLOAD_OFFSET;

    private WindowChunkDescriptor()
    {
    }

    /**
     * @param payload bytes the user asked for, 1 to {@link #MAX_PAYLOAD}.
     * @return the file's length: header and payload, rounded up to whole pages.
     */
    public static long fileLength(final int payload)
    {
        return Align.up((long)PAYLOAD_OFFSET + payload, PAGE);
    }
}
