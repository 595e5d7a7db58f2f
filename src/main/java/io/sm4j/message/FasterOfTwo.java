package io.sm4j.message;

/**
 * Of two ways to move the same bytes, the one that has cost this rank less lately, per size class (a power of
 * two), measured as it goes. Two uses, both decided by the machine more than by the message: a large message from
 * a peer's off-heap memory, read out of the sender's process (one copy, made by the kernel on the receiver's
 * core) or streamed through the fragment pipeline (two copies, the sender's core and the receiver's at once;
 * {@code SM4J_PEER_READS=auto}); and a bcast's, allGather's or allToAll's data in a rank's off-heap memory, left
 * in place for the other ranks to read out of its process or copied into its half of the collective region for
 * them. On the 2-core VM of docs/benchmarks.md the pipeline moved 1 MiB in 35 us where a read took 74, while in
 * its other mode, where the JVM's copy into lines the other core has read is slow, a read took 50 and the
 * pipeline 170 (the eighth session's figures, rounded); with more ranks than cores each way also waits for the scheduler's turns differently.
 * <p>
 * A way's cost is its duration per byte, from when it was chosen to its end, or from the end of the same lane's
 * previous use of the way if that came later (a lane is what serialises uses: one sender streams its messages
 * one after another through the pipeline, so a window's messages, answered at once, end one after another;
 * streams from two senders overlap, and are timed apart), less the time the owner spent meanwhile on what the
 * use waited for (a receiver's reads of other messages, while a stream's fragments waited for it), up to half the
 * duration (the use went on in part meanwhile: the sender fills the pipeline ahead). The cheaper way is chosen, and the other taken again
 * after every {@link #RETRY} uses of the class for {@link #RETRY_USES} uses in a row, so a change of the machine's
 * mode is followed within that many.
 * A class's first use takes the first way, its second the second. A duration below the way's cost so far
 * replaces it, down to a quarter of it (a copy is never faster than it can be, but a timing can be wrong); one
 * above it is blended in a quarter at a time, and at most twice the cost (a stall is common): one stalled copy
 * does not decide the next {@link #RETRY} uses, while a way that got slower for good loses within a few.
 * Not thread-safe: its owner's (a matcher, a region).
 */
final class FasterOfTwo
{
    /** The way that lost is taken again after this many uses of the class. */
    static final int RETRY = 64;
    /**
     * Uses a retry takes in a row: its first finds the caches as the other way left them (a sender's buffer that it
     * has just copied into the pipeline, in its own core's cache, read 2-3x slower than one it left alone).
     */
    static final int RETRY_USES = 2;
    /** The smallest class: 16 KiB ({@code PeerMemory.MIN_BYTES}); smaller sizes count as it. */
    private static final int SMALLEST_CLASS = 14;
    private static final int CLASSES = Integer.SIZE - SMALLEST_CLASS;

    /** Nanoseconds per byte, by way (first, second) and class; 0 while not measured. */
    private final double[][] cost = new double[2][CLASSES];
    /** Uses of the class since each way was last taken. */
    private final int[][] since = new int[2][CLASSES];
    /** Uses of the class left in a retry, and its way. */
    private final int[] retryLeft = new int[CLASSES];
    private final boolean[] retryFirst = new boolean[CLASSES];
    /** System.nanoTime() of each way's last measured end per lane, if {@link #measured}. */
    private final long[][] lastEnd;
    /** The owner's excluded time ({@link #ended}) at that end. */
    private final long[][] lastExcluded;
    private final boolean[][] measured;

    /**
     * @param lanes how many lanes uses come in ({@link #ended}).
     */
    FasterOfTwo(final int lanes)
    {
        lastEnd = new long[2][lanes];
        lastExcluded = new long[2][lanes];
        measured = new boolean[2][lanes];
        java.util.Arrays.fill(since[0], RETRY);
        java.util.Arrays.fill(since[1], RETRY);
    }

    /**
     * @return true to take the first way for {@code bytes}, false for the second; the choice counts as a use.
     */
    boolean first(final int bytes)
    {
        final int c = sizeClass(bytes);
        final boolean first;
        if (retryLeft[c] > 0)
        {
            retryLeft[c]--;
            first = retryFirst[c];
        }
        else if (since[0][c] >= RETRY)
        {
            first = true; // a class's first use, and the first way tried again after it lost
            retry(c, true);
        }
        else if (since[1][c] >= RETRY)
        {
            first = false;
            retry(c, false);
        }
        else
        {
            // a cost still 0 is a first sample to come (a window answers many messages before the first stream ends)
            first = cost[1][c] == 0 || cost[0][c] != 0 && cost[0][c] <= cost[1][c];
        }
        final int way = first ? 0 : 1;
        since[way][c] = 0;
        since[1 - way][c]++;
        return first;
    }

    /**
     * A retry of a way that lost takes {@link #RETRY_USES} uses; a way not measured yet in the class (its first use,
     * or a use whose sample is still to come or never came), one.
     */
    private void retry(final int c, final boolean first)
    {
        if (cost[first ? 0 : 1][c] != 0)
        {
            retryLeft[c] = RETRY_USES - 1;
            retryFirst[c] = first;
        }
    }

    /**
     * A use of the {@code first} way (else the second) for {@code bytes} in {@code lane}, chosen at {@code start},
     * ended at {@code end} (both System.nanoTime()).
     *
     * @param excludedAtStart the owner's excluded time at {@code start}: a running sum of nanoseconds that no use
     *                        is to be charged (0 if the owner excludes nothing).
     * @param excludedAtEnd   the same at {@code end}.
     */
    void ended(
        final boolean first, final int bytes, final int lane, final long start, final long end,
        final long excludedAtStart, final long excludedAtEnd)
    {
        final int way = first ? 0 : 1;
        final int c = sizeClass(bytes);
        // nanoTime may be negative, and wrap: compared by difference
        final boolean afterLast = measured[way][lane] && lastEnd[way][lane] - start > 0;
        final long from = afterLast ? lastEnd[way][lane] : start;
        final long excluded = excludedAtEnd - (afterLast ? lastExcluded[way][lane] : excludedAtStart);
        passed(first, lane, end, excludedAtEnd);
        // at most half the duration left out: the use went on meanwhile in part (a sender fills the pipeline ahead)
        final long duration = end - from;
        cost[way][c] = blend(cost[way][c], Math.max(duration - Math.min(excluded, duration / 2), 1) / (double)bytes);
    }

    /**
     * A use of the {@code first} way (else the second) in {@code lane} that is not measured ended at {@code end}: the
     * lane's next use is timed from there if it waited for it.
     */
    void passed(final boolean first, final int lane, final long end, final long excludedAtEnd)
    {
        final int way = first ? 0 : 1;
        lastEnd[way][lane] = end;
        lastExcluded[way][lane] = excludedAtEnd;
        measured[way][lane] = true;
    }

    private static double blend(final double cost, final double sample)
    {
        if (cost == 0)
        {
            return sample;
        }
        // a copy is never faster than it can be, while a stall is common: a lower cost at once, a higher one slowly
        return sample < cost ? Math.max(sample, cost / 4) : cost + (Math.min(sample, 2 * cost) - cost) / 4;
    }

    private static int sizeClass(final int bytes)
    {
        return Math.max(Integer.SIZE - 1 - Integer.numberOfLeadingZeros(bytes) - SMALLEST_CLASS, 0);
    }
}
