package io.sm4j.layout;

/**
 * One rank's doorbell: a word that says whether the rank sleeps, on a cacheline of its own, one per rank,
 * after the control blocks. The rank stores ARMED or ARMED_FUTEX (a full fence) before its looks at its
 * in-bound paths (one, a nap, another) and blocks in the kernel; a publisher that reads either after its own
 * store swaps it to RUNG (one publisher wins) and wakes the rank the way the armed value names: a byte to
 * its socket, or a futex wake on this word; the rank stores AWAKE once it runs again. A rank sleeps on the
 * futex only if every rank of the job has said that it can ring one (the abilities word, written before the
 * rank registers; 0 until then): a JDK 17 rank cannot, and would leave it asleep. The same word says whether
 * the rank reads its peers' processes ({@code PeerMemory}) and, once it has tried after every rank attached,
 * whether it could read each peer that reads too: it reads the peer's address word out of the peer's process,
 * which holds the word's own address there (a value only a read of that process at that address gives). A collective leaves
 * a rank's off-heap data for its readers to read only if every one of them has checked and could.
 * The rank writes the state only when it falls asleep or wakes, and publishers only read it until they find
 * it armed, so the line stays shared while the rank is busy.
 * <pre>
 *   written by the rank (arm, disarm) and by one publisher per sleep (armed to RUNG)
 *  +---------------------------------------------------------------+ 0
 *  |   State: AWAKE 0, ARMED 1, RUNG 2, ARMED_FUTEX 3 (64 bits;   ...
 *  |   a futex compares its low 32 bits)                           |
 *  +---------------------------------------------------------------+ 8
 *  |   Abilities (written before the rank registers, and once more  |
 *  |   after its check): bit 0 FUTEX: it can sleep on and ring    ...
 *  |   futexes; bit 1 READS: it reads its peers' processes;        |
 *  |   bit 2 CHECKED: it tried every peer that READS; bit 3        |
 *  |   UNREADABLE: it could not read one of them                   |
 *  +---------------------------------------------------------------+ 16
 *  |   Address: where this word lies in the rank's own process    ...
 *  |   (written before it registers, never changed)                |
 *  +---------------------------------------------------------------+ 24
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
    /** Abilities: the rank has tried to read every peer that {@link #READS}, out of its process. */
    public static final long CHECKED = 4;
    /** Abilities, with {@link #CHECKED}: the rank could not read one of them. */
    public static final long UNREADABLE = 8;

    public static final int STATE_OFFSET = 0;
    public static final int ABILITIES_OFFSET = STATE_OFFSET + Long.BYTES;
    public static final int ADDRESS_OFFSET = ABILITIES_OFFSET + Long.BYTES;
    public static final int LENGTH = ADDRESS_OFFSET + Long.BYTES;

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
