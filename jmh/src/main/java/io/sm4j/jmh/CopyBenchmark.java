package io.sm4j.jmh;

import org.agrona.concurrent.UnsafeBuffer;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;

/**
 * One core's memcpy, the bound of a large message's copies: a heap array into a mapped /dev/shm file (the
 * sender's copy into its max-size fragments) and back out (the receiver's copy into the receive buffer), as
 * {@code UnsafeBuffer.putBytes}/{@code getBytes} do them. A two-copy pipeline of one message costs at least
 * one such copy per byte on each side, overlapped on two cores; a single-copy design (Open MPI's CMA or
 * XPMEM, the shared-window issue) one.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED")
@State(Scope.Benchmark)
public class CopyBenchmark
{
    @Param({ "32768", "1048576" })
    int size;

    private Path file;
    private UnsafeBuffer shared;
    private byte[] heap;

    @Setup
    public void setup() throws IOException
    {
        file = Files.createTempFile(Path.of("/dev/shm"), "sm4j-copy-", ".bin");
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            shared = new UnsafeBuffer(channel.map(FileChannel.MapMode.READ_WRITE, 0, size));
        }
        heap = new byte[size];
        shared.setMemory(0, size, (byte)1); // touch every page before measuring
    }

    @TearDown
    public void tearDown() throws IOException
    {
        Files.deleteIfExists(file);
    }

    @Benchmark
    public void heapToShared()
    {
        shared.putBytes(0, heap);
    }

    @Benchmark
    public void sharedToHeap()
    {
        shared.getBytes(0, heap);
    }
}
