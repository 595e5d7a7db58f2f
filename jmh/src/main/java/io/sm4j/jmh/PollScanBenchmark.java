package io.sm4j.jmh;

import io.sm4j.layout.ControlBlockDescriptor;
import io.sm4j.layout.LayoutParams;
import io.sm4j.segment.Segment;
import io.sm4j.segment.SegmentFiles;
import io.sm4j.transport.Endpoint;
import io.sm4j.transport.FragmentHandler;
import io.sm4j.transport.TransportOptions;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
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

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Cost of an empty poll at rank 0 of an n-rank job: with no active sender (what the activity bitmap buys:
 * ceil(n / 64) loads) against every sender active with empty queues (the per-pair design's O(n) scan, as
 * a receiver without the bitmap would pay on every poll). RFC-tuned parameters keep the segment small.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED")
@State(Scope.Benchmark)
public class PollScanBenchmark
{
    @Param({ "2", "64", "1024" })
    int peers;

    @Param({ "false", "true" })
    boolean allActive;

    Segment segment;
    Endpoint endpoint;
    final FragmentHandler handler = fragment -> { };

    @Setup(Level.Trial)
    public void setup()
    {
        final LayoutParams params = LayoutParams.builder(peers).eagerLimit(256).queueEntries(16).maxFragSize(8192).build();
        segment = Segment.create(params, Path.of("/dev/shm"), SegmentFiles.newJobId());
        for (int rank = 1; rank < peers; rank++)
        {
            segment.ranks().register(rank);
        }
        endpoint = Endpoint.open(segment, 0, TransportOptions.defaults(), false);
        if (allActive)
        {
            final int length = ControlBlockDescriptor.activityLength(peers);
            final UnsafeBuffer bitmap = segment.views().activity(0);
            for (int i = 0; i < length; i += Long.BYTES)
            {
                bitmap.putLongVolatile(i, -1L);
            }
        }
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        endpoint.close();
        segment.close();
    }

    @Benchmark
    public int emptyPoll()
    {
        return endpoint.poll(handler, 64);
    }
}
