package io.sm4j.layout;

/**
 * The segment header at offset 0. The creator fills every field, then release-stores {@link #STATE_OFFSET}
 * to {@link #STATE_READY} last (as Aeron's CnC file publishes its version last); attachers acquire-load
 * the state before trusting any other byte.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+   0
 *  |                        Magic (64 bits)                       ...
 *  +---------------------------------------------------------------+   8
 *  |                        Format version                         |
 *  +---------------------------------------------------------------+  12
 *  |           Job state (CREATING, READY, ABORTED), last          |
 *  +---------------------------------------------------------------+  16
 *  |   peers | eagerLimit | maxFragSize | queueEntries |           |
 *  |   eagerFragsPerPeer | maxFragsPerRank | cacheline | pageSize |  |
 *  |   threadMode | policy | fastBoxes | fastBoxSize |             |
 *  |   collectiveContexts | collectiveBufferSize (14 x 32 bits)   |
 *  +---------------------------------------------------------------+  72
 *  |                    Total length (64 bits)                    ...
 *  +---------------------------------------------------------------+  80
 *  |                  Layout checksum (64 bits)                   ...
 *  +---------------------------------------------------------------+  88
 *  |                    Creator pid (64 bits)                     ...
 *  +---------------------------------------------------------------+  96
 *  |                       Job id (64 bits)                       ...
 *  +---------------------------------------------------------------+ 104
 *  |          Creator start time, ticks after boot (64 bits)      ...
 *  +---------------------------------------------------------------+ 112
 *  |                   Aborting rank (-1 = launcher)               |
 *  +---------------------------------------------------------------+ 116
 *  |                    Abort reason length                        |
 *  +---------------------------------------------------------------+ 120
 *  |            Detached ranks (the last one out removes)          |
 *  +---------------------------------------------------------------+ 124
 *  |     Owner: CREATOR (stays for the job) or RANKS (handed over)  |
 *  +---------------------------------------------------------------+ 128
 *  |       Abort exit code (abort(code, reason); 0: none given)     |
 *  +---------------------------------------------------------------+ 132
 *  |                           (unused)                            |
 *  +---------------------------------------------------------------+ 136
 *  |              Abort reason, UTF-8 (up to 1,912 bytes)         ...
 *  +---------------------------------------------------------------+ 2048
 * </pre>
 */
public final class SegmentHeaderDescriptor
{
    /** "SM4JSEG1" read as a little-endian long. */
    public static final long MAGIC = 0x3147455334534D53L;
    /**
     * 15: an ACK may say its receiver chose to have a message streamed that it could have read
     * (STREAMED_BY_CHOICE, a bit a rank of format 14 would keep in the receive id its FRAGs name);
     * 14: start times in clock ticks after boot (/proc/PID/stat's field 22), where 13 and before had milliseconds
     * since the epoch; 13: the exit code a rank's {@code abort(code, reason)} gives the job, before a 1,912-byte abort reason;
     * 12: the doorbell line's abilities word (futex and peer-reads bits, the reads check) and address word, where
     * format 11 had a futex flag; 11: the source record of an allGather's or allToAll's step in the collective
     * slot's line (a rank's data read in place from its shared buffer), where a rank of format 10 would read the
     * half; 10: a small bcast's, reduce's or allReduce's data in the collective slot's line
     * (CollectiveSlotDescriptor), where a rank of format 9 would look in a half; 9: a doorbell's futex word and
     * its ARMED_FUTEX state; 8: the collective regions' two parameters (and a 1,920-byte abort reason); 7: each
     * rank's counters (with its waiting mark) after the doorbells (6: a 1,928-byte abort reason; 5: a doorbell
     * line per rank after the control blocks; 4: the creator's and each rank's start time, the owner).
     */
    public static final int VERSION = 15;

    public static final int STATE_CREATING = 0;
    public static final int STATE_READY = 1;
    public static final int STATE_ABORTED = 2;

    /** The creator (a launcher) stays for the whole job: the job is over when it and every rank are gone. */
    public static final int OWNER_CREATOR = 0;
    /** The creator ({@code sm4j create}) handed the file to ranks that something else starts. */
    public static final int OWNER_RANKS = 1;

    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = MAGIC_OFFSET + Long.BYTES;
    public static final int STATE_OFFSET = VERSION_OFFSET + Integer.BYTES;
    public static final int PARAMS_OFFSET = STATE_OFFSET + Integer.BYTES;
    public static final int PARAMS_COUNT = 14;
    public static final int TOTAL_LENGTH_OFFSET = PARAMS_OFFSET + PARAMS_COUNT * Integer.BYTES;
    public static final int CHECKSUM_OFFSET = TOTAL_LENGTH_OFFSET + Long.BYTES;
    public static final int CREATOR_PID_OFFSET = CHECKSUM_OFFSET + Long.BYTES;
    public static final int JOB_ID_OFFSET = CREATOR_PID_OFFSET + Long.BYTES;
    public static final int CREATOR_START_OFFSET = JOB_ID_OFFSET + Long.BYTES;
    public static final int ABORT_RANK_OFFSET = CREATOR_START_OFFSET + Long.BYTES;
    public static final int ABORT_REASON_LENGTH_OFFSET = ABORT_RANK_OFFSET + Integer.BYTES;
    public static final int DETACHED_COUNT_OFFSET = ABORT_REASON_LENGTH_OFFSET + Integer.BYTES;
    public static final int OWNER_OFFSET = DETACHED_COUNT_OFFSET + Integer.BYTES;
    public static final int ABORT_CODE_OFFSET = OWNER_OFFSET + Integer.BYTES;
    public static final int ABORT_REASON_OFFSET = ABORT_CODE_OFFSET + Long.BYTES;
    /** An exception's message whole, as a rank's abort carries it: a cut cause misleads. */
    public static final int ABORT_REASON_MAX_LENGTH = 1912;
    public static final int LENGTH = ABORT_REASON_OFFSET + ABORT_REASON_MAX_LENGTH;

    private SegmentHeaderDescriptor()
    {
    }

    /**
     * @param params layout parameters.
     * @return the parameters in header order, as stored from {@link #PARAMS_OFFSET}.
     */
    public static int[] encodeParams(final LayoutParams params)
    {
        return new int[]{
            params.peers(), params.eagerLimit(), params.maxFragSize(), params.queueEntries(),
            params.eagerFragsPerPeer(), params.maxFragsPerRank(), params.cacheline(), params.pageSize(),
            params.threadMode().ordinal(), params.policy().ordinal(), params.fastBoxes(), params.fastBoxSize(),
            params.collectiveContexts(), params.collectiveBufferSize() };
    }

    /**
     * @param words parameters as read from the header (untrusted).
     * @return the validated parameters.
     * @throws IllegalArgumentException if the words do not form valid parameters.
     */
    public static LayoutParams decodeParams(final int[] words)
    {
        return new LayoutParams(
            words[0], words[1], words[2], words[3], words[4], words[5], words[6], words[7],
            enumAt(ThreadMode.values(), words[8], "threadMode"), enumAt(Policy.values(), words[9], "policy"),
            words[10], words[11], words[12], words[13]);
    }

    private static <E> E enumAt(final E[] values, final int ordinal, final String name)
    {
        if (ordinal < 0 || ordinal >= values.length)
        {
            throw new IllegalArgumentException(name + " ordinal=" + ordinal + " (expected: 0.." + (values.length - 1) + ")");
        }
        return values[ordinal];
    }
}
