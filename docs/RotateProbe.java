// 64 KiB written by the JVM's copy into a mapping another thread reads back each round, the writer moving through spans of 128 KiB to 32 MiB (lines the reader's caches dropped). docs/benchmarks.md, "Large writes on JDK 17 without memcpy: tried".
// java docs/RotateProbe.java
import java.nio.*;
import java.nio.channels.FileChannel;
import java.nio.file.*;
import java.util.concurrent.atomic.AtomicLong;

public class RotateProbe {
    static final AtomicLong posted = new AtomicLong(), acked = new AtomicLong();
    static double w, r, round;
    public static void main(String[] a) throws Exception {
        Path p = Paths.get("/dev/shm/rotprobe");
        int total = 32 << 20;
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ch.truncate(0); ch.write(ByteBuffer.allocate(total), 0);
            MappedByteBuffer region = ch.map(FileChannel.MapMode.READ_WRITE, 0, total);
            int block = 65536; int rounds = 20000;
            byte[] heap = new byte[block]; byte[] dst = new byte[block];
            for (int rep = 0; rep < 3; rep++) for (int span : new int[]{1 << 17, 1 << 20, 4 << 20, 16 << 20, 32 << 20}) {
                posted.set(0); acked.set(0); final int slots = span / block;
                Thread wt = new Thread(() -> { long sum = 0; int c = 0; ByteBuffer wr = region.duplicate();
                    for (long i = 1; i <= rounds; i++) { while (acked.get() != i - 1) Thread.onSpinWait(); long t = System.nanoTime();
                        wr.put((int) (i % slots) * block, heap, 0, block);
                        long e = System.nanoTime(); if (i > rounds / 4) { sum += e - t; c++; } posted.set(i); }
                    w = (double) sum / c; });
                Thread rt = new Thread(() -> { long sum = 0, rs = 0; int c = 0; long last = System.nanoTime(); ByteBuffer rd = region.duplicate();
                    for (long i = 1; i <= rounds; i++) { while (posted.get() != i) Thread.onSpinWait(); long t = System.nanoTime(); rd.get((int) (i % slots) * block, dst, 0, block); long e = System.nanoTime(); if (i > rounds / 4) { sum += e - t; rs += e - last; c++; } last = e; acked.set(i); }
                    r = (double) sum / c; round = (double) rs / c; });
                wt.start(); rt.start(); wt.join(); rt.join();
                System.out.printf("span %6d KiB  write %8.2f us, read %8.2f us, round %8.2f us%n", span >> 10, w / 1000, r / 1000, round / 1000);
            }
        } finally { Files.deleteIfExists(p); }
    }
}
