package io.sm4j.jmh;

import io.sm4j.fifo.FragmentPool;
import io.sm4j.layout.LayoutParams;
import io.sm4j.layout.SegmentLayout;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * A sender's max-size fragment bookkeeping: take a fragment from its process-local free list and give it
 * back, as every large-message chunk and every returned fragment does. Must not depend on n.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED")
@State(Scope.Thread)
public class FragmentPoolBenchmark
{
    @Param({ "2", "1024" })
    int peers;

    FragmentPool pool;

    @Setup
    public void setup()
    {
        pool = new FragmentPool(SegmentLayout.compute(LayoutParams.defaults(peers)), 0);
    }

    @Benchmark
    public boolean acquireAndRelease()
    {
        return pool.release(pool.acquire());
    }
}
