import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A 2-rank allGather of 64 KiB through shared memory, modelled by two threads of one JVM: each copies its block
 * into its own region (as a collective slot's half), posts, copies its block into its result, waits for the
 * other's post, copies the other's block out of the other's region, and acknowledges. It times the three copies
 * apart, so that what the second copy costs (the write into the region, whose lines the reader holds) shows
 * against the read and the local copy. The write position moves through SPAN bytes of the region: 128 KiB
 * reuses two halves (sm4j's slot), 8 MiB writes lines the reader's caches have long dropped.
 * <pre>
 * java --add-opens java.base/jdk.internal.misc=ALL-UNNAMED -cp target/sm4j.jar docs/RegionWrite.java
 * </pre>
 */
public class RegionWrite
{
    static final int BLOCK = 65536;
    static final int ROUNDS = 30_000;
    static final int SKIP = 10_000;
    static final UnsafeBuffer[] REGION = new UnsafeBuffer[2];

    public static void main(final String[] args) throws InterruptedException
    {
        for (int r = 0; r < 2; r++)
        {
            REGION[r] = new UnsafeBuffer(ByteBuffer.allocateDirect(8 << 20));
        }
        for (final int span : new int[]{ 2 * BLOCK, 8 << 20, 2 * BLOCK, 8 << 20 })
        {
            final AtomicLongArray flags = new AtomicLongArray(64);
            final long[][] parts = new long[2][];
            final Thread[] threads = new Thread[2];
            for (int r = 0; r < 2; r++)
            {
                final int me = r;
                threads[r] = new Thread(() -> parts[me] = run(me, span, flags));
                threads[r].start();
            }
            for (final Thread thread : threads)
            {
                thread.join();
            }
            final long[] p = parts[0];
            System.out.printf("span %,5d KiB: %.2f us per allGather; write into the region %.2f, local copy %.2f, read out of the other's %.2f%n",
                span >> 10, p[3] / 1000.0 / (ROUNDS - SKIP), p[0] / 1000.0 / (ROUNDS - SKIP), p[1] / 1000.0 / (ROUNDS - SKIP),
                p[2] / 1000.0 / (ROUNDS - SKIP));
        }
    }

    /**
     * @return nanoseconds in the write, the local copy, the read and the whole call, over the timed rounds.
     */
    static long[] run(final int me, final int span, final AtomicLongArray flags)
    {
        final int other = 1 - me;
        final UnsafeBuffer send = new UnsafeBuffer(new byte[BLOCK]);
        final UnsafeBuffer recv = new UnsafeBuffer(new byte[2 * BLOCK]);
        final long[] parts = new long[4];
        int position = 0;
        for (int i = 1; i <= ROUNDS; i++)
        {
            final long t0 = System.nanoTime();
            REGION[me].putBytes(position, send, 0, BLOCK);
            final long t1 = System.nanoTime();
            flags.lazySet(me * 16, i); // post
            recv.putBytes(me * BLOCK, send, 0, BLOCK);
            final long t2 = System.nanoTime();
            while (flags.get(other * 16) < i)
            {
                Thread.onSpinWait();
            }
            final long t3 = System.nanoTime();
            recv.putBytes(other * BLOCK, REGION[other], position, BLOCK);
            final long t4 = System.nanoTime();
            flags.lazySet(32 + me * 8, i); // read: the other may write its region again
            while (flags.get(32 + other * 8) < i)
            {
                Thread.onSpinWait();
            }
            if (i > SKIP)
            {
                parts[0] += t1 - t0;
                parts[1] += t2 - t1;
                parts[2] += t4 - t3;
                parts[3] += System.nanoTime() - t0;
            }
            position = position + 2 * BLOCK > span ? 0 : position + BLOCK;
        }
        return parts;
    }
}
