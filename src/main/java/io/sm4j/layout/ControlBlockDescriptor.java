package io.sm4j.layout;

/**
 * One rank's control block: an owner line written only by that rank, and an activity bitmap with one bit
 * per sender that has ever sent to the rank. A sender sets its bit once, before its first publish; the
 * receiver then scans only active senders' FIFOs, so an idle poll reads {@code ceil(n / 64)} words and a
 * send costs no extra shared write (a per-message doorbell would add a contended cacheline to every send).
 * <pre>
 *   owner line (written by the rank only)
 *  +---------------------------------------------------------------+ 0
 *  |        Pid (64 bits), claimed by CAS from 0: the rank's lock  ...
 *  +---------------------------------------------------------------+ 8
 *  |      Rank state (ABSENT, ATTACHED, DETACHED), released last   |
 *  +---------------------------------------------------------------+ 12
 *  |                           Reserved                            |
 *  +---------------------------------------------------------------+ 16
 *  |          Heartbeat, System.nanoTime() of last progress       ...
 *  +---------------------------------------------------------------+ 24
 *  |      Process start time, ticks after boot (64 bits)          ...
 *  +---------------------------------------------------------------+ 32
 *   activity bitmap (set by senders, read by the rank), at the next cacheline
 *  +---------------------------------------------------------------+ 0
 *  |          bit s of word s / 64: sender s is active            ...
 *  ...                 ceil(n / 64) words                          |
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class ControlBlockDescriptor
{
    public static final int STATE_ABSENT = 0;
    public static final int STATE_ATTACHED = 1;
    public static final int STATE_DETACHED = 2;

    public static final int PID_OFFSET = 0;
    public static final int STATE_OFFSET = PID_OFFSET + Long.BYTES;
    public static final int HEARTBEAT_OFFSET = STATE_OFFSET + Integer.BYTES + Integer.BYTES;
    public static final int START_OFFSET = HEARTBEAT_OFFSET + Long.BYTES;
    public static final int OWNER_LENGTH = START_OFFSET + Long.BYTES;

    private ControlBlockDescriptor()
    {
    }

    /**
     * @param cacheline the layout's cacheline.
     * @return offset of the activity bitmap from the control block's start: the owner line rounded up to
     *         whole cachelines (one line unless the cacheline is shorter than {@link #OWNER_LENGTH}).
     */
    public static int activityOffset(final int cacheline)
    {
        return (int)Align.up(OWNER_LENGTH, cacheline);
    }

    /**
     * @param peers ranks on the node.
     * @return bytes of the activity bitmap.
     */
    public static int activityLength(final int peers)
    {
        return ((peers + Long.SIZE - 1) / Long.SIZE) * Long.BYTES;
    }

    /**
     * @param cacheline the layout's cacheline.
     * @param peers     ranks on the node.
     * @return distance between consecutive control blocks.
     */
    public static long stride(final int cacheline, final int peers)
    {
        return activityOffset(cacheline) + Align.up(activityLength(peers), cacheline);
    }
}
