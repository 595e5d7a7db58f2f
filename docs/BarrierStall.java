// A probe: N barriers after 20,000 warm-up ones, on as many ranks as run it; prints each rank's mean, the barriers over 100 and 500 us (the first ones as index@ms since the first timed barrier:us), its doorbell sleeps and CPU time.
// javac -cp target/sm4j.jar -d /tmp/probe docs/BarrierStall.java && java --add-opens java.base/jdk.internal.misc=ALL-UNNAMED -jar target/sm4j.jar run -n 2 -cp /tmp/probe -- BarrierStall 200000
import io.sm4j.message.Communicator;
import io.sm4j.transport.Endpoint;
import io.sm4j.transport.Endpoints;

public class BarrierStall
{
    public static void main(String[] a) throws Exception
    {
        final int n = Integer.parseInt(a[0]);
        final Endpoint endpoint = Endpoints.attachFromEnvironment();
        try (Communicator comm = new Communicator(endpoint))
        {
            for (int i = 0; i < 20000; i++) comm.barrier();
            long[] t = new long[n];
            final Endpoint.WaitCounters before = endpoint.waitCounters();
            long cpu0 = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
            long[] end = new long[n]; final long first = System.nanoTime();
            for (int i = 0; i < n; i++) { long s = System.nanoTime(); comm.barrier(); end[i] = System.nanoTime(); t[i] = end[i] - s; }
            long cpu1 = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
            final Endpoint.WaitCounters after = endpoint.waitCounters();
            int over100 = 0, over500 = 0; long sum = 0; StringBuilder sb = new StringBuilder();
            for (int i = 0; i < n; i++) { sum += t[i]; if (t[i] > 100_000) over100++; if (t[i] > 500_000) { over500++; if (sb.length() < 300) sb.append(i).append('@').append((end[i] - first) / 1_000_000).append("ms:").append(t[i]/1000).append(' '); } }
            System.out.println("rank " + comm.rank() + " mean " + (sum / n) + " ns, >100us " + over100 + ", >500us " + over500 + " sleeps " + (after.sleeps() - before.sleeps()) + " timedOut " + (after.timedOut()-before.timedOut()) + " cpu ms " + (cpu1-cpu0)/1_000_000 + " wall ms " + sum/1_000_000 + " stalls " + sb);
        }
    }
}
