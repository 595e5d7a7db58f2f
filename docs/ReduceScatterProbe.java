// A probe: typed reduceScatter (float SUM, every rank gets BLOCK floats) on the ranks of `sm4j run`, at blocks of 2, 256, 4,096 and 65,536 floats; each size 2,000 calls to warm up, then CALLS timed; rank 0 prints the mean and median per call in us.
// javac -cp target/sm4j.jar -d /tmp/probe docs/ReduceScatterProbe.java && java --add-opens java.base/jdk.internal.misc=ALL-UNNAMED -jar target/sm4j.jar run -n 4 -cp /tmp/probe -- ReduceScatterProbe 2000
import io.sm4j.collective.Op;
import io.sm4j.message.Communicator;

import java.util.Arrays;

public class ReduceScatterProbe
{
    public static void main(String[] a) throws Exception
    {
        final int calls = Integer.parseInt(a[0]);
        try (Communicator comm = Communicator.attachFromEnvironment())
        {
            for (final int block : new int[]{ 2, 256, 4096, 65536 })
            {
                final float[] send = new float[block * comm.size()];
                Arrays.fill(send, comm.rank() + 1);
                final float[] recv = new float[block];
                final int n = block >= 65536 ? calls / 10 : calls;
                for (int i = 0; i < 2000; i++) comm.reduceScatter(send, recv, Op.SUM);
                final long[] t = new long[n];
                comm.barrier();
                for (int i = 0; i < n; i++) { final long s = System.nanoTime(); comm.reduceScatter(send, recv, Op.SUM); t[i] = System.nanoTime() - s; }
                final float expected = comm.size() * (comm.size() + 1) / 2f;
                if (recv[block - 1] != expected) throw new IllegalStateException("wrong sum " + recv[block - 1] + " != " + expected);
                Arrays.sort(t);
                if (comm.rank() == 0)
                {
                    System.out.printf("block %6d floats: mean %8.2f us, p50 %8.2f us%n", block, Arrays.stream(t).average().orElse(0) / 1000, t[n / 2] / 1000.0);
                }
                comm.barrier();
            }
        }
    }
}
