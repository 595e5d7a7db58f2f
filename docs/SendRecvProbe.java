import io.sm4j.message.Communicator;

/**
 * Two ranks exchange 8 B with sendRecv, N times a round, five timed rounds after one untimed; prints each timed
 * round's mean per exchange (docs/benchmarks.md, "Twentieth session": an eager send that goes out at once is sent
 * first, and the receive is then a blocking one, with its looks at the source).
 * <pre>
 * javac -cp target/sm4j.jar -d /tmp/probe docs/SendRecvProbe.java
 * java --add-opens java.base/jdk.internal.misc=ALL-UNNAMED -cp target/sm4j.jar io.sm4j.cli.Sm4jCli run -n 2 -cp /tmp/probe -- SendRecvProbe 200000
 * </pre>
 */
public class SendRecvProbe
{
    public static void main(String[] args)
    {
        final int n = Integer.parseInt(args[0]);
        try (Communicator comm = Communicator.attachFromEnvironment())
        {
            final int peer = 1 - comm.rank();
            final byte[] out = new byte[8];
            final byte[] in = new byte[8];
            for (int round = 0; round < 6; round++)
            {
                comm.barrier();
                final long t0 = System.nanoTime();
                for (int i = 0; i < n; i++)
                {
                    comm.sendRecv(peer, 1, out, peer, 1, in);
                }
                final long t1 = System.nanoTime();
                if (comm.rank() == 0 && round > 0)
                {
                    System.out.printf("round %d: %.3f us per exchange%n", round, (t1 - t0) / 1e3 / n);
                }
            }
        }
    }
}
