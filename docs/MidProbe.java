// A ping-pong of SIZE bytes through the public API, two phases of ITERS round trips, the second timed: mean,
// percentiles and the round trips slower than 10 us, 100 us, 1 ms, and where the slow ones fell. Run as
//   javac -cp target/sm4j.jar -d /tmp/probe docs/MidProbe.java
//   bin/sm4j run -n 2 -cp target/sm4j.jar:/tmp/probe --jvm-arg=-XX:+UseParallelGC --jvm-arg=-Xms256m --jvm-arg=-XX:+AlwaysPreTouch -- MidProbe 8192 100000
import io.sm4j.message.Communicator;
import org.HdrHistogram.Histogram;
import org.agrona.concurrent.UnsafeBuffer;
import java.nio.ByteBuffer;

public class MidProbe
{
    public static void main(final String[] args) throws Exception
    {
        final int size = Integer.parseInt(args[0]);
        final int iters = Integer.parseInt(args[1]);
        try (Communicator comm = Communicator.attachFromEnvironment())
        {
            final int rank = comm.rank();
            final UnsafeBuffer buf = new UnsafeBuffer(ByteBuffer.allocateDirect(size));
            final Histogram h = new Histogram(3);
            final int[] slow = new int[iters];
            int nslow = 0;
            for (int phase = 0; phase < 2; phase++)
            {
                h.reset();
                nslow = 0;
                for (int i = 0; i < iters; i++)
                {
                    final long t0 = System.nanoTime();
                    if (rank == 0)
                    {
                        comm.send(1, 1, buf, 0, size);
                        comm.recv(1, 1, buf, 0, size, null);
                    }
                    else
                    {
                        comm.recv(0, 1, buf, 0, size, null);
                        comm.send(0, 1, buf, 0, size);
                    }
                    final long dt = (System.nanoTime() - t0) / 2;
                    h.recordValue(dt);
                    if (dt > 8000) slow[nslow++] = i;
                }
            }
            if (rank == 0)
            {
                final StringBuilder sb = new StringBuilder();
                for (int k = 0; k < Math.min(nslow, 60); k++) sb.append(slow[k]).append(k > 0 ? "(+" + (slow[k] - slow[k - 1]) + ") " : " ");
                System.out.println("slow at: " + sb);
                System.out.printf("size %d mean %.2f p50 %.2f p90 %.2f p95 %.2f p98 %.2f p99 %.2f p99.9 %.2f max %.1f; >10us %d >100us %d >1ms %d%n",
                    size, h.getMean() / 1e3, h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(90) / 1e3,
                    h.getValueAtPercentile(95) / 1e3, h.getValueAtPercentile(98) / 1e3, h.getValueAtPercentile(99) / 1e3,
                    h.getValueAtPercentile(99.9) / 1e3, h.getMaxValue() / 1e3,
                    h.getCountBetweenValues(10_000, Long.MAX_VALUE / 4), h.getCountBetweenValues(100_000, Long.MAX_VALUE / 4),
                    h.getCountBetweenValues(1_000_000, Long.MAX_VALUE / 4));
            }
        }
    }
}
