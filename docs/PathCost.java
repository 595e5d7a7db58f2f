// The send + receive loop of docs/benchmarks.md ("the small-message path, profiled"): two ranks of a real
// segment in this JVM, rank 0 sends SIZE bytes, rank 1 receives them, N times a round, 8 rounds.
// java --add-opens java.base/jdk.internal.misc=ALL-UNNAMED -cp target/test-classes:target/classes:$(cat target/classpath.txt) docs/PathCost.java 8 3000000
import io.sm4j.layout.LayoutParams;
import io.sm4j.message.Communicator;
import io.sm4j.transport.TwoRanks;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.BufferUtil;

public class PathCost {
    public static void main(String[] a) throws Exception {
        int size = Integer.parseInt(a[0]);
        long n = Long.parseLong(a[1]);
        try (TwoRanks ranks = new TwoRanks(LayoutParams.defaults(2))) {
            Communicator c0 = new Communicator(ranks.rank0), c1 = new Communicator(ranks.rank1);
            UnsafeBuffer out = new UnsafeBuffer(BufferUtil.allocateDirectAligned(4096, 64));
            UnsafeBuffer in = new UnsafeBuffer(BufferUtil.allocateDirectAligned(4096, 64));
            for (int round = 0; round < 8; round++) {
                long t0 = System.nanoTime();
                for (long i = 0; i < n; i++) {
                    c0.send(1, 1, out, 0, size);
                    c1.recv(0, 1, in, 0, size, null);
                }
                long t1 = System.nanoTime();
                System.out.printf("round %d: %.1f ns per send+recv%n", round, (t1 - t0) / (double) n);
            }
        }
    }
}
