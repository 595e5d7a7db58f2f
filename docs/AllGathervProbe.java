// Reference for docs/benchmarks.md (issue 23): allGatherv through the collective region against the
// point-to-point ring. Blocks of 1, 1/2, 1/4 ... of BYTES per rank (rank r: BYTES >> (r % 3)), 5,000 warm-up
// and 5,000 timed calls per size, a barrier between calls; the last rank prints its mean us per call.
// Build: javac -cp target/sm4j.jar -d /tmp/agv docs/AllGathervProbe.java
// Run:   bin/sm4j run -n N [--coll-contexts 0] -cp /tmp/agv -- AllGathervProbe
import io.sm4j.message.Communicator;
import org.agrona.concurrent.UnsafeBuffer;

public class AllGathervProbe
{
    public static void main(String[] args) throws Exception
    {
        try (Communicator comm = Communicator.attachFromEnvironment())
        {
            StringBuilder line = new StringBuilder("allGatherv, mean us per call (largest block: us):");
            for (int bytes = 64; bytes <= 65536; bytes *= 16)
            {
                int[] counts = new int[comm.size()];
                int[] displacements = new int[comm.size()];
                int total = 0;
                for (int r = 0; r < counts.length; r++)
                {
                    counts[r] = bytes >> (r % 3);
                    displacements[r] = total;
                    total += counts[r];
                }
                UnsafeBuffer send = new UnsafeBuffer(new byte[counts[comm.rank()]]);
                UnsafeBuffer recv = new UnsafeBuffer(new byte[total]);
                for (int i = 0; i < 5000; i++) { comm.allGatherv(send, 0, counts[comm.rank()], recv, 0, counts, displacements); comm.barrier(); }
                long sum = 0;
                for (int i = 0; i < 5000; i++)
                {
                    long a = System.nanoTime();
                    comm.allGatherv(send, 0, counts[comm.rank()], recv, 0, counts, displacements);
                    sum += System.nanoTime() - a;
                    comm.barrier();
                }
                line.append(String.format(" %d: %.2f", bytes, sum / 5000 / 1000.0));
            }
            if (comm.rank() == comm.size() - 1) System.out.println(line);
        }
    }
}
