// Reference for docs/benchmarks.md (issue 23): scan through the collective region against point to point.
// Every rank runs scans of float[] (SUM) at 2 to 1024 floats: 20,000 warm-up calls, then 20,000 timed calls
// per size, a barrier between calls as sm4j bench does for collectives; the last rank, which waits for every
// other, prints its mean us per call.
// Build: javac -cp target/sm4j.jar -d /tmp/scan docs/ScanProbe.java
// Run:   bin/sm4j run -n N [--coll-contexts 0] -cp /tmp/scan -- ScanProbe
import io.sm4j.collective.Op;
import io.sm4j.message.Communicator;

public class ScanProbe
{
    public static void main(String[] args) throws Exception
    {
        try (Communicator comm = Communicator.attachFromEnvironment())
        {
            StringBuilder line = new StringBuilder("scan, mean us per call (floats: us):");
            for (int floats = 2; floats <= 1024; floats *= 8)
            {
                float[] mine = new float[floats];
                float[] out = new float[floats];
                java.util.Arrays.fill(mine, comm.rank() + 1);
                for (int i = 0; i < 20000; i++) { comm.scan(mine, out, Op.SUM); comm.barrier(); }
                long total = 0;
                for (int i = 0; i < 20000; i++)
                {
                    long a = System.nanoTime();
                    comm.scan(mine, out, Op.SUM);
                    total += System.nanoTime() - a;
                    comm.barrier();
                }
                line.append(String.format(" %d: %.2f", floats, total / 20000 / 1000.0));
            }
            if (comm.rank() == comm.size() - 1) System.out.println(line);
        }
    }
}
