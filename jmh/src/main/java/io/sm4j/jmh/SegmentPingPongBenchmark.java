package io.sm4j.jmh;

import io.sm4j.transport.Endpoint;
import io.sm4j.transport.SendClaim;
import io.sm4j.transport.FragmentHandler;
import io.sm4j.transport.FragmentView;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Control;

import java.util.concurrent.TimeUnit;

/**
 * Round trips of one eager fragment between two threads, each the endpoint of one rank of a real
 * two-rank segment in /dev/shm: the transport's latency without the process boundary, the JIT, the
 * message layer or the scheduler of two JVMs. Each op is one round trip: ping sends and waits for the
 * echo, pong waits and echoes. Needs both cores: on a 2-core machine JMH's own threads compete with the two
 * spinning ones and single iterations range from 0.7 to over 20 us, so use it for profiling, not figures.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED")
@State(Scope.Group)
public class SegmentPingPongBenchmark
{
    @Param({ "8", "1024" })
    int size;

    TwoEndpoints ranks;
    Endpoint rank0;
    Endpoint rank1;
    final UnsafeBuffer payload = new UnsafeBuffer(new byte[4096]);

    @Setup(Level.Trial)
    public void setup()
    {
        ranks = new TwoEndpoints();
        rank0 = ranks.rank0;
        rank1 = ranks.rank1;
    }

    /**
     * Takes what the last iteration left in flight: once JMH stops an iteration the two threads send without
     * receiving until the queues are full, and a backlog carried into the next iteration would pipeline its round
     * trips (a rate, not a latency).
     */
    @Setup(Level.Iteration)
    public void drain()
    {
        final FragmentHandler discard = fragment -> { };
        while (rank0.poll(discard, 64) + rank1.poll(discard, 64) > 0)
        {
            Thread.onSpinWait();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        ranks.close(rank0::close, rank1::close);
    }

    /** Counts fragments a poll delivered; one per thread. */
    @State(Scope.Thread)
    public static class Arrivals implements FragmentHandler
    {
        int count;

        @Override
        public void onFragment(final FragmentView fragment)
        {
            count++;
        }

        /** Gives up when JMH ends the iteration, or the other thread's last send would never come. */
        void awaitOne(final Endpoint endpoint, final Control control)
        {
            final int target = count + 1;
            while (count < target && !control.stopMeasurement)
            {
                endpoint.poll(this, 1);
            }
        }
    }

    @Benchmark
    @Group("pingPong")
    @GroupThreads(1)
    public int ping(final Arrivals arrivals, final Control control)
    {
        send(rank0, ranks.claim0, 1, control);
        arrivals.awaitOne(rank0, control);
        return arrivals.count;
    }

    @Benchmark
    @Group("pingPong")
    @GroupThreads(1)
    public int pong(final Arrivals arrivals, final Control control)
    {
        arrivals.awaitOne(rank1, control);
        send(rank1, ranks.claim1, 0, control);
        return arrivals.count;
    }

    /** A send that gives up when the iteration ends (a blocking send could wait for a thread that stopped). */
    private void send(final Endpoint from, final SendClaim claim, final int to, final Control control)
    {
        while (!TwoEndpoints.trySend(from, claim, to, payload, size) && !control.stopMeasurement)
        {
            Thread.onSpinWait(); // one message in flight: room comes back with the receiver's credit count
        }
    }
}
