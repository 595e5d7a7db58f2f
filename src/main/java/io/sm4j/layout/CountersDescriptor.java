package io.sm4j.layout;

import java.util.List;

/**
 * One rank's counters: what it has sent and received and how its sends waited, written only by the rank
 * with ordered stores and read from outside by {@code sm4j stat} (as AeronStat reads a media driver's
 * counters). One region per rank, after the doorbells, on cachelines of its own: the rank's stores never
 * share a line with another rank's, and nothing on the data path reads them (the waiting mark is here, not
 * in the control block, for that reason: senders read the receiver's control block on every claim, and a
 * store there per wait cost 0.03 us of one-way latency).
 * <pre>
 *   written by the rank only (ordered stores), read by anyone
 *  +---------------------------------------------------------------+ 0
 *  |          Messages sent (EAGER, RNDV, RGET; not control)      ...
 *  +---------------------------------------------------------------+ 8
 *  |          Bytes of the messages sent                          ...
 *  +---------------------------------------------------------------+ 16
 *  |          Messages received (arrived from a peer)             ...
 *  +---------------------------------------------------------------+ 24
 *  |          Bytes of the messages received                      ...
 *  +---------------------------------------------------------------+ 32
 *  |          Fragments sent inline in a fast box record          ...
 *  +---------------------------------------------------------------+ 40
 *  |          Fragments sent by FIFO word or fast box reference   ...
 *  +---------------------------------------------------------------+ 48
 *  |          Nanoseconds sends waited for credit, pool or box room ...
 *  +---------------------------------------------------------------+ 56
 *  |          Unexpected-message bytes kept (at the last health tick) ...
 *  +---------------------------------------------------------------+ 64
 *  |          Unexpected-message budget (SM4J_UNEXPECTED_BYTES)   ...
 *  +---------------------------------------------------------------+ 72
 *  |          Waiting: 1 while its thread waits in sm4j (SINGLE mode) ...
 *  +---------------------------------------------------------------+ 80
 *  |          Padding to the end of the cacheline                  |
 *  +---------------------------------------------------------------+ stride
 * </pre>
 * A counter that the message layer keeps (messages, bytes, unexpected) stays 0 for a rank that uses the
 * transport's raw API; messages a rank sends itself are not counted. Messages are counted as their first
 * fragment is published and as it arrives (matched to a receive or kept as unexpected); room waits and the
 * unexpected bytes are published on the rank's health check, at most 100 ms old while it is inside sm4j.
 */
public final class CountersDescriptor
{
    public static final int MESSAGES_SENT = 0;
    public static final int BYTES_SENT = 1;
    public static final int MESSAGES_RECEIVED = 2;
    public static final int BYTES_RECEIVED = 3;
    public static final int BOX_SENDS = 4;
    public static final int FIFO_SENDS = 5;
    public static final int ROOM_WAIT_NANOS = 6;
    public static final int UNEXPECTED_BYTES = 7;
    public static final int UNEXPECTED_LIMIT = 8;
    /**
     * Not 0 from a SINGLE-mode rank's first idle pass of a wait to the wait's end: {@link #SPINNING} or
     * {@link #YIELDING}, as the wait's last idle pass did (a sleep shows in the doorbell's state instead); 0
     * outside a wait. A waiting rank beats at least every health interval, so a launcher that finds it waiting
     * with an old heartbeat knows it is frozen (a Java debugger, a long GC pause).
     */
    public static final int WAITING = 9;
    /** {@link #WAITING}'s value while the wait spins between passes. */
    public static final long SPINNING = 1;
    /** {@link #WAITING}'s value while the wait yields the processor between passes (sched_yield). */
    public static final long YIELDING = 2;
    /** Counters per rank. */
    public static final int COUNT = 10;
    public static final int LENGTH = COUNT * Long.BYTES;

    /** Offsets of the counters in the rank's region, for writers that address them directly ({@link #offset}). */
    public static final int MESSAGES_SENT_OFFSET = MESSAGES_SENT * Long.BYTES;
    public static final int BYTES_SENT_OFFSET = BYTES_SENT * Long.BYTES;
    public static final int MESSAGES_RECEIVED_OFFSET = MESSAGES_RECEIVED * Long.BYTES;
    public static final int BYTES_RECEIVED_OFFSET = BYTES_RECEIVED * Long.BYTES;
    public static final int BOX_SENDS_OFFSET = BOX_SENDS * Long.BYTES;
    public static final int FIFO_SENDS_OFFSET = FIFO_SENDS * Long.BYTES;
    public static final int ROOM_WAIT_NANOS_OFFSET = ROOM_WAIT_NANOS * Long.BYTES;
    public static final int UNEXPECTED_BYTES_OFFSET = UNEXPECTED_BYTES * Long.BYTES;
    public static final int UNEXPECTED_LIMIT_OFFSET = UNEXPECTED_LIMIT * Long.BYTES;
    public static final int WAITING_OFFSET = WAITING * Long.BYTES;

    /** Names as {@code sm4j stat} prints them, by index (JSON keys). */
    public static final List<String> NAMES = List.of(
        "messages_sent", "bytes_sent", "messages_received", "bytes_received", "box_sends", "fifo_sends",
        "room_wait_ns", "unexpected_bytes", "unexpected_limit", "waiting");

    private CountersDescriptor()
    {
    }

    /**
     * @param counter one of the indexes above.
     * @return its offset in the rank's region.
     */
    public static int offset(final int counter)
    {
        return counter * Long.BYTES;
    }

    /**
     * @param cacheline the layout's cacheline.
     * @return distance between two ranks' counters: whole cachelines.
     */
    public static long stride(final int cacheline)
    {
        return Align.up(LENGTH, cacheline);
    }
}
