import org.agrona.concurrent.UnsafeBuffer;

import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;

/**
 * The floor under a 2-rank 8-byte allReduce on this machine (docs/benchmarks.md, eighteenth session): two JVMs
 * run osu_allreduce's loop (time an allReduce, then a barrier) over two step words on lines of their own in a
 * mapped file, with nothing else: a step is a release store after the data, a wait spins on the other's step.
 * Prints each rank's mean time per allReduce over five rounds of ITERATIONS calls.
 * <pre>
 * CP=~/.m2/repository/org/agrona/agrona/2.6.0/agrona-2.6.0.jar
 * javac -cp $CP -d /tmp/probe docs/AllReduceFloorProbe.java && rm -f /dev/shm/floor-probe
 * O="--add-opens java.base/jdk.internal.misc=ALL-UNNAMED -cp $CP:/tmp/probe"
 * java $O AllReduceFloorProbe 1 1000000 &amp; java $O AllReduceFloorProbe 0 1000000; wait; rm /dev/shm/floor-probe
 * </pre>
 */
public final class AllReduceFloorProbe
{
    private static final int LINE = 128;
    private static final int DATA = 32;

    private final UnsafeBuffer lines;
    private final int rank;
    private long step;

    private AllReduceFloorProbe(final UnsafeBuffer lines, final int rank)
    {
        this.lines = lines;
        this.rank = rank;
    }

    private void post()
    {
        lines.putLongRelease(rank * LINE, ++step);
        while (lines.getLongAcquire((1 - rank) * LINE) < step)
        {
            Thread.onSpinWait();
        }
    }

    private float allReduce(final float value)
    {
        final int place = DATA + (int)((step + 1) & 1) * 16; // two places by parity, as the region's inline data
        lines.putFloat(rank * LINE + place, value);
        post();
        final float other = lines.getFloat((1 - rank) * LINE + place);
        return rank == 0 ? value + other : other + value;
    }

    public static void main(final String[] args) throws Exception
    {
        final int rank = Integer.parseInt(args[0]);
        final int iterations = Integer.parseInt(args[1]);
        try (RandomAccessFile file = new RandomAccessFile("/dev/shm/floor-probe", "rw"))
        {
            file.setLength(2 * LINE);
            final AllReduceFloorProbe probe = new AllReduceFloorProbe(
                new UnsafeBuffer(file.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, 2 * LINE)), rank);
            float sum = 0;
            for (int round = 0; round < 5; round++)
            {
                long nanos = 0;
                for (int i = 0; i < iterations; i++)
                {
                    final long start = System.nanoTime();
                    sum += probe.allReduce(i);
                    nanos += System.nanoTime() - start;
                    probe.post(); // the barrier
                }
                System.out.printf("rank %d round %d: %.3f us per allReduce%n", rank, round, nanos / 1000.0 / iterations);
            }
            System.out.println("checksum " + sum); // keeps the calls' results alive
        }
    }
}
