// Two ranks as threads of one JVM (ThreadJob), back to back: N barriers, N 8-byte allReduces (float[2], SUM), then N of both; us per call, the third of three repetitions, three jobs. docs/benchmarks.md, "Short copies by words".
// mvn -q package -DskipTests && java --add-opens java.base/jdk.internal.misc=ALL-UNNAMED -cp target/sm4j.jar docs/AllReduceProbe.java 300000
import io.sm4j.collective.Op;
import io.sm4j.message.ThreadJob;

public class AllReduceProbe {
    public static void main(String[] a) throws Exception {
        final int n = Integer.parseInt(a[0]);
        for (int job = 0; job < 3; job++) {
            ThreadJob.run(2, comm -> {
                final float[] in = new float[2], out = new float[2];
                for (int k = 0; k < 3; k++) {
                    final long t0 = System.nanoTime();
                    for (int i = 0; i < n; i++) comm.barrier();
                    final long t1 = System.nanoTime();
                    for (int i = 0; i < n; i++) comm.allReduce(in, out, Op.SUM);
                    final long t2 = System.nanoTime();
                    for (int i = 0; i < n; i++) { comm.barrier(); comm.allReduce(in, out, Op.SUM); }
                    final long t3 = System.nanoTime();
                    if (comm.rank() == 0 && k == 2) System.out.printf("barrier %.3f us, allReduce %.3f us, both %.3f us%n",
                        (t1 - t0) / 1e3 / n, (t2 - t1) / 1e3 / n, (t3 - t2) / 1e3 / n);
                }
            });
        }
    }
}
