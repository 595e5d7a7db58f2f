// Reference for docs/benchmarks.md (issue 23): collectives that sm4j bench has no test for (scatter, scan,
// exScan, reduceScatter), at one size, to compare collective buffer sizes (--coll-buffer) or the region
// with point to point (--coll-contexts 0). float[] of BYTES / 4 elements per rank (scatter: per rank's piece;
// reduceScatter: per block, n blocks sent), SUM, root 0; CALLS warm-up and CALLS timed calls (2,000 each by
// default), a barrier between calls. Prints, on rank 0, each rank's mean us per call averaged over the ranks
// (as OSU's collective tests), and the same of the ranks' medians.
// Build: javac -cp target/sm4j.jar -d /tmp/rp docs/RegionProbe.java
// Run:   bin/sm4j run -n N [--coll-buffer B | --coll-contexts 0] -cp /tmp/rp -- RegionProbe COLLECTIVE BYTES [CALLS]
import io.sm4j.collective.Op;
import io.sm4j.message.Communicator;

public class RegionProbe
{
    public static void main(String[] args) throws Exception
    {
        String collective = args[0];
        int floats = Integer.parseInt(args[1]) / 4;
        int calls = args.length > 2 ? Integer.parseInt(args[2]) : 2000;
        try (Communicator comm = Communicator.attachFromEnvironment())
        {
            int n = comm.size();
            float[] mine = new float[floats];
            float[] all = new float[floats * n];
            float[] out = new float[floats];
            java.util.Arrays.fill(mine, comm.rank() + 1);
            java.util.Arrays.fill(all, comm.rank() + 1);
            long sum = 0;
            long[] times = new long[calls];
            for (int i = 0; i < 2 * calls; i++)
            {
                long a = System.nanoTime();
                switch (collective)
                {
                    case "scatter" -> comm.scatter(all, mine, 0);
                    case "scan" -> comm.scan(mine, out, Op.SUM);
                    case "exScan" -> comm.exScan(mine, out, Op.SUM);
                    case "reduceScatter" -> comm.reduceScatter(all, mine, Op.SUM);
                    default -> throw new IllegalArgumentException(collective);
                }
                long t = System.nanoTime() - a;
                if (i >= calls)
                {
                    sum += t;
                    times[i - calls] = t;
                }
                comm.barrier();
            }
            java.util.Arrays.sort(times);
            double[] stats = { sum / calls / 1000.0, times[calls / 2] / 1000.0 };
            double[] sums = new double[2];
            comm.allReduce(stats, sums, Op.SUM);
            if (comm.rank() == 0)
            {
                System.out.printf("%s %d bytes, %d ranks: mean %.2f us, p50 %.2f us%n", collective, floats * 4, n, sums[0] / n, sums[1] / n);
            }
        }
    }
}
