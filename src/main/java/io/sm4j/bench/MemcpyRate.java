package io.sm4j.bench;

import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Arrays;

/**
 * The physical limit of a single-copy message: how fast one core copies a block from one off-heap buffer to
 * another, here and now (issue 24 measures single copy against it). The median of rounds of copies, after a
 * warm-up, so one stall does not decide.
 */
public final class MemcpyRate
{
    private static final int ROUNDS = 15;

    private MemcpyRate()
    {
    }

    /**
     * @return nanoseconds one copy of {@code bytes} takes, the median of {@value #ROUNDS} rounds.
     */
    public static double nanosPerCopy(final int bytes)
    {
        final UnsafeBuffer from = new UnsafeBuffer(BufferUtil.allocateDirectAligned(bytes, BitUtil.CACHE_LINE_LENGTH));
        final UnsafeBuffer to = new UnsafeBuffer(BufferUtil.allocateDirectAligned(bytes, BitUtil.CACHE_LINE_LENGTH));
        from.setMemory(0, bytes, (byte)1);
        to.setMemory(0, bytes, (byte)2); // both touched: no page is faulted in while timed
        final int copies = Math.max(4, (64 << 20) / bytes); // about 64 MiB a round
        final double[] rounds = new double[ROUNDS + 3];
        for (int round = 0; round < rounds.length; round++)
        {
            final long start = System.nanoTime();
            for (int i = 0; i < copies; i++)
            {
                to.putBytes(0, from, 0, bytes);
            }
            rounds[round] = (double)(System.nanoTime() - start) / copies;
        }
        final double[] timed = Arrays.copyOfRange(rounds, 3, rounds.length); // the first rounds warm up
        Arrays.sort(timed);
        return timed[timed.length / 2];
    }
}
