// Reference for docs/benchmarks.md (issue 23): how a 4-rank barrier on 2 cores settles after a pause. Every rank
// runs 100,000 barriers, then twice: a 300 ms pause and 25 blocks of 2,000 barriers; rank 0 prints the mean
// ns per barrier of each block.
// Build: javac -cp target/sm4j.jar -d /tmp/sp docs/SettleProbe.java
// Run:   bin/sm4j run -n 4 -cp /tmp/sp -- SettleProbe
import io.sm4j.message.Communicator;

public class SettleProbe
{
    public static void main(String[] args) throws Exception
    {
        try (Communicator comm = Communicator.attachFromEnvironment())
        {
            for (int i = 0; i < 100000; i++) comm.barrier(); // warm
            for (int round = 0; round < 2; round++)
            {
                Thread.sleep(300);
                comm.barrier();
                StringBuilder sb = new StringBuilder("after pause, mean ns per 2000-block:");
                for (int block = 0; block < 25; block++)
                {
                    long a = System.nanoTime();
                    for (int i = 0; i < 2000; i++) comm.barrier();
                    sb.append(' ').append((System.nanoTime() - a) / 2000);
                }
                if (comm.rank() == 0) System.out.println(sb);
            }
        }
    }
}
