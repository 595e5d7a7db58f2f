import io.sm4j.message.Communicator;

/**
 * Reproduces the stalls of a point-to-point exchange of large messages (issue 22): two ranks allToAll 64 KiB
 * blocks (a sendRecv of 64 KiB each way, both sends by rendezvous at once) and print the calls over 300 us.
 * With the collective regions off, calls take about 20 us, and a few per thousand take 1-3 ms (up to 30),
 * in bursts of 3-5 calls, most in the first round. An event log of both ranks (commits, rings, polls that
 * delivered, arm, nap, sleep; docs/benchmarks.md) showed every long stall to be a rank that did not run at
 * all for 2-36 ms, one of them a nap that overran its 1 ms timeout by 3.6 ms, while its peer slept armed:
 * 2 vCPUs lent to other threads (the JIT's, most in the first round), not a lost message or wake-up (every
 * long sleep ended by the peer's ring, none by its timeout).
 * <pre>
 * javac -cp target/sm4j.jar -d /tmp/probe docs/ExchangeStallProbe.java
 * bin/sm4j run -n 2 --coll-contexts 0 -cp /tmp/probe -- ExchangeStallProbe 65536
 * </pre>
 */
public class ExchangeStallProbe
{
    public static void main(String[] args)
    {
        try (Communicator comm = Communicator.attachFromEnvironment())
        {
            final int block = Integer.parseInt(args[0]);
            final byte[] out = new byte[block * comm.size()];
            final byte[] in = new byte[block * comm.size()];
            for (int i = 0; i < 3000; i++) { comm.allToAll(out, in, block); comm.barrier(); }
            for (int round = 0; round < 3; round++)
            {
                StringBuilder sb = new StringBuilder();
                long sum = 0; int slow = 0;
                for (int i = 0; i < 5000; i++)
                {
                    long a = System.nanoTime();
                    comm.allToAll(out, in, block);
                    long t = System.nanoTime() - a;
                    sum += t;
                    if (t > 300_000) { slow++; if (slow < 12) sb.append(i).append(':').append(t / 1000).append("us "); }
                    comm.barrier();
                }
                if (comm.rank() == 0) System.out.println("round " + round + " mean " + sum / 5000 / 1000.0 + " us, slow " + slow + ": " + sb);
            }
        }
    }
}
