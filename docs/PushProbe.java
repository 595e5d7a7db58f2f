// A probe: 2 ranks ping-pong SIZE bytes, 300 round trips after 100, sending from a direct ByteBuffer and receiving into a shared buffer (args: SIZE shared) or a direct one (SIZE direct).
// javac -cp target/sm4j.jar -d /tmp/probe docs/PushProbe.java && java --add-opens java.base/jdk.internal.misc=ALL-UNNAMED -jar target/sm4j.jar run -n 2 -cp /tmp/probe -- PushProbe 4194304 shared
import io.sm4j.message.Communicator;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

public class PushProbe
{
    public static void main(String[] a)
    {
        final int size = Integer.parseInt(a[0]);
        final boolean shared = a[1].equals("shared");
        final int iters = 300;
        try (Communicator comm = Communicator.attachFromEnvironment())
        {
            final UnsafeBuffer out = new UnsafeBuffer(BufferUtil.allocateDirectAligned(size, 64));
            final UnsafeBuffer in = shared ? comm.allocate(size) : new UnsafeBuffer(BufferUtil.allocateDirectAligned(size, 64));
            final int peer = 1 - comm.rank();
            final long[] t = new long[iters];
            for (int i = 0; i < iters + 100; i++)
            {
                final long s = System.nanoTime();
                if (comm.rank() == 0) { comm.send(peer, 1, out, 0, size); comm.recv(peer, 1, in, 0, size); }
                else { comm.recv(peer, 1, in, 0, size); comm.send(peer, 1, out, 0, size); }
                if (i >= 100) t[i - 100] = System.nanoTime() - s;
            }
            if (comm.rank() == 0)
            {
                long sum = 0; for (long x : t) sum += x;
                java.util.Arrays.sort(t);
                System.out.printf("%s %d: mean %.1f us one-way, p50 %.1f%n", a[1], size, sum / 2e3 / iters, t[iters / 2] / 2e3);
            }
        }
    }
}
