package io.sm4j.jmh;

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
 * Cost of computing a layout and of an offset query: both must be independent of n (arithmetic, no
 * tables). Compare the scores across {@code peers}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED")
@State(Scope.Thread) // each thread its own sender counter: a shared one would measure contention on its line
public class LayoutBenchmark
{
    @Param({ "2", "64", "1024" })
    int peers;

    LayoutParams params;
    SegmentLayout layout;
    int sender;

    @Setup
    public void setup()
    {
        params = LayoutParams.defaults(peers);
        layout = SegmentLayout.compute(params);
    }

    @Benchmark
    public long compute()
    {
        return SegmentLayout.compute(params).totalBytes();
    }

    @Benchmark
    public long queueOffset()
    {
        sender = sender + 1 == peers ? 1 : sender + 1;
        return layout.queueOffset(sender, 0) + layout.headOffset(sender, 0);
    }
}
