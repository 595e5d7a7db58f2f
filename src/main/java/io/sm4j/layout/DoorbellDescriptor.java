package io.sm4j.layout;

/**
 * One rank's doorbell: a word that says whether the rank sleeps, on a cacheline of its own, one per rank,
 * after the control blocks. The rank stores ARMED (a full fence) before its looks at its in-bound paths
 * (one, a nap, another) and blocks in the kernel; a publisher that reads ARMED after its own store swaps it
 * to RUNG (one publisher wins) and wakes the rank through its socket; the rank stores AWAKE once it runs
 * again.
 * The rank writes the word only when it falls asleep or wakes, and publishers only read it until they find
 * it ARMED, so the line stays shared while the rank is busy.
 * <pre>
 *   written by the rank (arm, disarm) and by one publisher per sleep (ARMED to RUNG)
 *  +---------------------------------------------------------------+ 0
 *  |              State: AWAKE 0, ARMED 1, RUNG 2 (64 bits)       ...
 *  +---------------------------------------------------------------+ 8
 *  |                 Padding to the end of the cacheline           |
 *  +---------------------------------------------------------------+ cacheline
 * </pre>
 */
public final class DoorbellDescriptor
{
    /** The rank is not blocked (or is about to look at its paths again): publishers ring nobody. */
    public static final long AWAKE = 0;
    /** The rank looks at its paths once more, naps, looks again and blocks: the next publisher rings it. */
    public static final long ARMED = 1;
    /** A publisher has taken the ring (only one writes to the rank's socket); the rank disarms on waking. */
    public static final long RUNG = 2;

    public static final int STATE_OFFSET = 0;
    public static final int LENGTH = STATE_OFFSET + Long.BYTES;

    private DoorbellDescriptor()
    {
    }

    /**
     * @param cacheline the layout's cacheline.
     * @return distance between two ranks' doorbells: the word alone on its line.
     */
    public static long stride(final int cacheline)
    {
        return Align.up(LENGTH, cacheline);
    }
}
