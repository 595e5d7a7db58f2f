package io.sm4j.message;

/**
 * Whether a large message from a peer's off-heap memory is read out of the sender's process (one copy, made by
 * the kernel on this rank's core) or streamed through the fragment pipeline (two copies, the sender's core and
 * this one copying at once), by what each has cost this rank lately for messages of about that size
 * ({@code SM4J_PEER_READS=auto}). Which one wins depends on the machine more than on the message: on the 2-core
 * VM of docs/benchmarks.md the pipeline moved 1 MiB in 35 us where a read took 74 (and Open MPI's CMA 75), while
 * in its other mode, where the JVM's copy into lines the other core has read is slow, a read took 50 and the
 * pipeline 170; with more ranks than cores the pipeline waits for its sender's turns as well.
 * <p>
 * So each rank measures both, per size class (a power of two): a read's own duration, and a stream's from the
 * receiver's answer (or the end of the stream before it, if that came later: streams follow each other through
 * the pipeline) to its last byte. It chooses the cheaper per byte, and takes the other again after every
 * {@link #RETRY} messages of the class, so a change of the machine's mode is followed within that many. A class's
 * first message is read, its second streamed. A duration below the class's cost so far replaces it (a copy is
 * never faster than it can be); one above it is blended in a quarter at a time, and at most twice the cost (a
 * stall is common): one stalled copy does not decide the next {@link #RETRY} messages, while a method that got
 * slower for good loses within a few.
 * Not thread-safe: the matcher's.
 */
final class ReadOrStream
{
    /** A class's method that lost is tried again after this many messages of the class. */
    static final int RETRY = 32;
    /** The smallest message read out of a peer's process: 16 KiB ({@code PeerMemory.MIN_BYTES}). */
    private static final int SMALLEST_CLASS = 14;
    private static final int CLASSES = Integer.SIZE - SMALLEST_CLASS;

    /** Nanoseconds per byte, by class; 0 while not measured. */
    private final double[] readCost = new double[CLASSES];
    private final double[] streamCost = new double[CLASSES];
    /** Messages of the class since it was last read, or streamed. */
    private final int[] sinceRead = new int[CLASSES];
    private final int[] sinceStream = new int[CLASSES];
    /** System.nanoTime() of the last measured stream's end. */
    private long lastStreamEnd;

    ReadOrStream()
    {
        java.util.Arrays.fill(sinceRead, RETRY);
        java.util.Arrays.fill(sinceStream, RETRY);
    }

    /**
     * @return true to read a message of {@code bytes} out of its sender's process, false to have it streamed.
     */
    boolean read(final int bytes)
    {
        final int c = sizeClass(bytes);
        final boolean read;
        if (sinceRead[c] >= RETRY)
        {
            read = true; // a class's first message, and a read that lost, tried again
        }
        else if (sinceStream[c] >= RETRY)
        {
            read = false;
        }
        else
        {
            // a cost still 0 is a first sample to come (a window answers many messages before the first stream ends)
            read = streamCost[c] == 0 || readCost[c] != 0 && readCost[c] <= streamCost[c];
        }
        if (read)
        {
            sinceRead[c] = 0;
            sinceStream[c]++;
        }
        else
        {
            sinceStream[c] = 0;
            sinceRead[c]++;
        }
        return read;
    }

    /**
     * A read of {@code bytes} took {@code nanos}.
     */
    void readTook(final int bytes, final long nanos)
    {
        final int c = sizeClass(bytes);
        readCost[c] = blend(readCost[c], nanos / (double)bytes);
    }

    /**
     * A stream of {@code bytes} answered at {@code since} ended at {@code now} (both System.nanoTime()).
     */
    void streamEnded(final int bytes, final long since, final long now)
    {
        final int c = sizeClass(bytes);
        final long start = Math.max(since, lastStreamEnd);
        lastStreamEnd = now;
        streamCost[c] = blend(streamCost[c], Math.max(now - start, 1) / (double)bytes);
    }

    private static double blend(final double cost, final double sample)
    {
        // a copy is never faster than it can be, while a stall is common: a lower cost at once, a higher one slowly
        return cost == 0 || sample < cost ? sample : cost + (Math.min(sample, 2 * cost) - cost) / 4;
    }

    private static int sizeClass(final int bytes)
    {
        return Math.max(Integer.SIZE - 1 - Integer.numberOfLeadingZeros(bytes) - SMALLEST_CLASS, 0);
    }
}
