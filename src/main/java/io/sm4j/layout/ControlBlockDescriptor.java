package io.sm4j.layout;

/**
 * One rank's control block: an owner line written only by that rank, and a doorbell line that senders
 * bump after publishing to the rank's in-bound FIFOs (so an idle receiver polls one word, not n - 1
 * queues). The two are a cacheline apart; the layout spaces control blocks by two cachelines.
 * <pre>
 *   owner line (written by the rank only)
 *  +---------------------------------------------------------------+ 0
 *  |                          Pid (64 bits)                       ...
 *  +---------------------------------------------------------------+ 8
 *  |           Rank state (ABSENT, ATTACHED, DETACHED, FAILED)     |
 *  +---------------------------------------------------------------+ 12
 *  |                           Reserved                            |
 *  +---------------------------------------------------------------+ 16
 *  |          Heartbeat, System.nanoTime() of last progress       ...
 *  +---------------------------------------------------------------+ 24
 *   doorbell line (written by every sender), at + cacheline
 *  +---------------------------------------------------------------+ 0
 *  |                    Doorbell counter (64 bits)                ...
 *  +---------------------------------------------------------------+ 8
 * </pre>
 */
public final class ControlBlockDescriptor
{
    public static final int STATE_ABSENT = 0;
    public static final int STATE_ATTACHED = 1;
    public static final int STATE_DETACHED = 2;
    public static final int STATE_FAILED = 3;

    public static final int PID_OFFSET = 0;
    public static final int STATE_OFFSET = PID_OFFSET + Long.BYTES;
    public static final int HEARTBEAT_OFFSET = STATE_OFFSET + Integer.BYTES + Integer.BYTES;
    public static final int OWNER_LENGTH = HEARTBEAT_OFFSET + Long.BYTES;
    public static final int DOORBELL_LENGTH = Long.BYTES;

    private ControlBlockDescriptor()
    {
    }

    /**
     * @param cacheline the layout's cacheline.
     * @return offset of the doorbell counter from the control block's start.
     */
    public static int doorbellOffset(final int cacheline)
    {
        return cacheline;
    }

    /**
     * @param cacheline the layout's cacheline.
     * @return distance between consecutive control blocks.
     */
    public static int stride(final int cacheline)
    {
        return 2 * cacheline;
    }
}
