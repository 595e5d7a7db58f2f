// Reference for docs/benchmarks.md (issue 23), two families of COLLECTIVE:
// - the "v" collectives through the collective region against their point-to-point paths (run with
//   --coll-contexts 0): allGatherv, gatherv, scatterv (root 0) with blocks of 1, 1/2, 1/4 ... of BYTES per
//   rank (rank r: BYTES >> (r % 3)), or allToAllv (rank r to rank d: BYTES >> ((r + d) % 3));
// - collectives sm4j bench has no test for, to compare buffer sizes (--coll-buffer): scan, exScan, scatter
//   and reduceScatter of float[] (SUM, root 0) of BYTES per rank (scatter: each rank's piece; reduceScatter:
//   each block, n blocks sent).
// BYTES = 64, 1 KiB, 16 KiB, 256 KiB unless given; 2,000 warm-up and 2,000 timed calls per size, a barrier
// between calls. Prints, on rank 0, each rank's mean us per call averaged over the ranks (as OSU's collective
// tests), and the same of the ranks' medians.
// (Up to 2026-11-27 this was docs/AllGathervProbe.java, which printed the last rank's mean of allGatherv; the
// float collectives were docs/RegionProbe.java for a few hours, with this loop.)
// Build: javac -cp target/sm4j.jar -d /tmp/vp docs/VectorsProbe.java
// Run:   bin/sm4j run -n N [--coll-contexts 0 | --coll-buffer B] -cp /tmp/vp -- VectorsProbe COLLECTIVE [BYTES [CALLS]]
//        (BYTES: one size only; CALLS: warm-up and timed calls, 2,000 each by default)
import io.sm4j.collective.Op;
import io.sm4j.message.Communicator;
import org.agrona.concurrent.UnsafeBuffer;

public class VectorsProbe
{
    public static void main(String[] args) throws Exception
    {
        String collective = args[0];
        int first = args.length > 1 ? Integer.parseInt(args[1]) : 64;
        int last = args.length > 1 ? first : 262144;
        int calls = args.length > 2 ? Integer.parseInt(args[2]) : 2000;
        try (Communicator comm = Communicator.attachFromEnvironment())
        {
            int n = comm.size();
            int me = comm.rank();
            StringBuilder line = new StringBuilder(collective + ", mean us per call over " + n + " ranks (largest block: mean us, p50):");
            for (int bytes = first; bytes <= last; bytes *= 16)
            {
                int[] counts = new int[n];
                int[] displacements = new int[n];
                int total = 0;
                for (int r = 0; r < n; r++)
                {
                    counts[r] = bytes >> (r % 3);
                    displacements[r] = total;
                    total += counts[r];
                }
                int[] pairCounts = new int[n];
                int[] pairDisplacements = new int[n];
                int pairTotal = 0;
                for (int d = 0; d < n; d++)
                {
                    pairCounts[d] = bytes >> ((me + d) % 3);
                    pairDisplacements[d] = pairTotal;
                    pairTotal += pairCounts[d];
                }
                UnsafeBuffer pairsOut = new UnsafeBuffer(new byte[pairTotal]);
                UnsafeBuffer pairsIn = new UnsafeBuffer(new byte[pairTotal]);
                UnsafeBuffer mine = new UnsafeBuffer(new byte[counts[me]]);
                UnsafeBuffer all = new UnsafeBuffer(new byte[total]);
                float[] floats = new float[bytes / 4];
                float[] floatsOut = new float[bytes / 4];
                float[] floatsAll = new float[bytes / 4 * n];
                long sum = 0;
                long[] times = new long[calls];
                for (int i = 0; i < 2 * calls; i++)
                {
                    long a = System.nanoTime();
                    switch (collective)
                    {
                        case "allGatherv" -> comm.allGatherv(mine, 0, counts[me], all, 0, counts, displacements);
                        case "gatherv" -> comm.gatherv(mine, 0, counts[me], all, 0, counts, displacements, 0);
                        case "scatterv" -> comm.scatterv(all, 0, counts, displacements, mine, 0, counts[me], 0);
                        case "allToAllv" -> comm.allToAllv(pairsOut, 0, pairCounts, pairDisplacements, pairsIn, 0, pairCounts, pairDisplacements);
                        case "scan" -> comm.scan(floats, floatsOut, Op.SUM);
                        case "exScan" -> comm.exScan(floats, floatsOut, Op.SUM);
                        case "scatter" -> comm.scatter(floatsAll, floats, 0);
                        case "reduceScatter" -> comm.reduceScatter(floatsAll, floats, Op.SUM);
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
                line.append(String.format(" %d: %.2f (p50 %.2f)", bytes, sums[0] / n, sums[1] / n));
            }
            if (me == 0) System.out.println(line);
        }
    }
}
