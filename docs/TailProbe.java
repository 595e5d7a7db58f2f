// Reference for docs/benchmarks.md (issue 20): n/2 pairs ping-pong 8 B through sm4j and every round trip
// slower than 100 us is logged with its time, to see when stalls happen (every scheduler tick, or at start).
// Build: javac -cp target/sm4j.jar -d /tmp/tp docs/TailProbe.java
// Run:   SM4J_IDLE=auto bin/sm4j run -n 4 -cp /tmp/tp [--jvm-arg -Dquiet=2000] -- TailProbe 100000
//        (taskset -c 0 java --add-opens java.base/jdk.internal.misc=ALL-UNNAMED -cp target/sm4j.jar
//         io.sm4j.cli.Sm4jCli run -n 2 -cp /tmp/tp -- TailProbe 300000: two ranks forced onto one core)
import io.sm4j.message.Communicator;
import org.agrona.concurrent.UnsafeBuffer;

public class TailProbe
{
    public static void main(final String[] args) throws Exception
    {
        final int n = Integer.parseInt(args[0]);
        try (Communicator c = Communicator.attachFromEnvironment())
        {
            final int half = c.size() / 2;
            final boolean sender = c.rank() < half;
            final int peer = sender ? c.rank() + half : c.rank() - half;
            final UnsafeBuffer b = new UnsafeBuffer(new byte[8]);
            for (int w = 0; w < 200; w++)
            {
                run(c, peer, sender, b, 500, false); // warm-up, with the barrier the measurement meets
                c.barrier();
            }
            Thread.sleep(Long.getLong("quiet", 0));
            c.barrier();
            final long[] stalls = run(c, peer, sender, b, n, true);
            if (sender)
            {
                final StringBuilder line = new StringBuilder("rank " + c.rank() + " round trips over 100 us (t_ms:us): ");
                for (int i = 0; i < stalls.length && stalls[i] != 0; i += 2)
                {
                    line.append(String.format("%.1f:%d ", stalls[i] / 1e6, stalls[i + 1] / 1000));
                }
                System.out.println(line);
            }
            c.barrier();
        }
    }

    private static long[] run(
        final Communicator c, final int peer, final boolean sender, final UnsafeBuffer b, final int n, final boolean record)
    {
        final long[] stalls = new long[400];
        int k = 0;
        final long t0 = System.nanoTime();
        long previous = t0;
        for (int i = 0; i < n; i++)
        {
            if (sender)
            {
                c.send(peer, 1, b, 0, 8);
                c.recv(peer, 1, b, 0, 8, null);
            }
            else
            {
                c.recv(peer, 1, b, 0, 8, null);
                c.send(peer, 1, b, 0, 8);
            }
            final long now = System.nanoTime();
            if (record && now - previous > 100_000 && k < stalls.length)
            {
                stalls[k++] = now - t0;
                stalls[k++] = now - previous;
            }
            previous = now;
        }
        if (record && sender)
        {
            System.out.println("rank " + c.rank() + " mean one-way us " + (System.nanoTime() - t0) / 2.0 / n / 1000);
        }
        return stalls;
    }
}
