package io.sm4j.layout;

/**
 * One rank's doorbell: a word that says whether the rank sleeps, on a cacheline of its own, one per rank,
 * after the control blocks. The rank stores ARMED or ARMED_FUTEX (a full fence) before its looks at its
 * in-bound paths (one, a nap, another) and blocks in the kernel; a publisher that reads either after its own
 * store swaps it to RUNG (one publisher wins) and wakes the rank the way the armed value names: a byte to
 * its socket, or a futex wake on this word; the rank stores AWAKE once it runs again. A rank sleeps on the
 * futex only if every rank of the job has said that it can ring one (the abilities word, written before the
 * rank registers; 0 until then): a JDK 17 rank cannot, and would leave it asleep. The same word says whether
 * the rank reads its peers' processes ({@code PeerMemory}): a collective leaves a rank's off-heap data for its
 * readers to read only if every one of them does.
 * The rank writes the state only when it falls asleep or wakes, and publishers only read it until they find
 * it armed, so the line stays shared while the rank is busy.
 * <pre>
 *   written by the rank (arm, disarm) and by one publisher per sleep (armed to RUNG)
 *  +---------------------------------------------------------------+ 0
 *  |   State: AWAKE 0, ARMED 1, RUNG 2, ARMED_FUTEX 3 (64 bits;   ...
 *  |   a futex compares its low 32 bits)                           |
 *  +---------------------------------------------------------------+ 8
 *  |   Abilities (written once, before the rank registers):        |
 *  |   bit 0 FUTEX: it can sleep on and ring futexes;             ...
 *  |   bit 1 READS: it reads its peers' processes                  |
 *  +---------------------------------------------------------------+ 16
 *  |                 Padding to the end of the cacheline           |
 *  +---------------------------------------------------------------+ cacheline
 * </pre>
 */
public final class DoorbellDescriptor
{
    /** The rank is not blocked (or is about to look at its paths again): publishers ring nobody. */
    public static final long AWAKE = 0;
    /** The rank looks once more, naps, looks again and blocks on its socket: the next publisher rings it. */
    public static final long ARMED = 1;
    /** A publisher has taken the ring (only one wakes the rank); the rank disarms on waking. */
    public static final long RUNG = 2;
    /** As ARMED, blocking in a futex wait on this word: the next publisher wakes the futex. */
    public static final long ARMED_FUTEX = 3;

    /** Abilities: the rank can sleep on and ring futexes. */
    public static final long FUTEX = 1;
    /** Abilities: the rank reads its peers' processes (and offers its own memory to be read). */
    public static final long READS = 2;

    public static final int STATE_OFFSET = 0;
    public static final int ABILITIES_OFFSET = STATE_OFFSET + Long.BYTES;
    public static final int LENGTH = ABILITIES_OFFSET + Long.BYTES;

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
