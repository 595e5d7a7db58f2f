// Writes into a /dev/shm mapping that another thread reads back each round, by the JVM's copy and by FileChannel.write (pwrite: the kernel's copy), from a byte[] and from a direct buffer; 16 KiB, 64 KiB, 1 MiB. docs/benchmarks.md, "Large writes on JDK 17 without memcpy: tried".
// java docs/KernelCopyProbe.java
import java.nio.*;
import java.nio.channels.FileChannel;
import java.nio.file.*;
import java.util.concurrent.atomic.AtomicLong;

public class KernelCopyProbe {
    static final AtomicLong posted = new AtomicLong(), acked = new AtomicLong();
    static double w, r, round;
    public static void main(String[] a) throws Exception {
        Path p = Paths.get("/dev/shm/kcprobe");
        int max = 1 << 20;
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ch.truncate(0); ch.write(ByteBuffer.allocate(max * 2), 0);
            MappedByteBuffer region = ch.map(FileChannel.MapMode.READ_WRITE, 0, max * 2);
            String[] names = {"JVM copy from byte[]", "FileChannel.write(byte[])", "FileChannel.write(direct)"};
            for (int block : new int[]{16384, 65536, 1 << 20}) {
                int rounds = block >= (1 << 20) ? 2000 : 20000;
                byte[] heap = new byte[block]; byte[] dst = new byte[block];
                ByteBuffer direct = ByteBuffer.allocateDirect(block);
                for (int rep = 0; rep < 3; rep++) for (int mode = 0; mode < 3; mode++) {
                    posted.set(0); acked.set(0); final int m = mode;
                    Thread wt = new Thread(() -> { long sum = 0; int c = 0;
                        ByteBuffer wr = region.duplicate(); ByteBuffer hb = ByteBuffer.wrap(heap);
                        try {
                        for (long i = 1; i <= rounds; i++) { while (acked.get() != i - 1) Thread.onSpinWait(); long t = System.nanoTime();
                            if (m == 0) { wr.put(4096, heap, 0, block); }
                            else if (m == 1) { hb.clear(); while (hb.hasRemaining()) ch.write(hb, 4096 + hb.position()); }
                            else { direct.clear(); while (direct.hasRemaining()) ch.write(direct, 4096 + direct.position()); }
                            long e = System.nanoTime(); if (i > rounds / 4) { sum += e - t; c++; } posted.set(i); }
                        } catch (Exception ex) { throw new RuntimeException(ex); }
                        w = (double) sum / c; });
                    Thread rt = new Thread(() -> { long sum = 0, rs = 0; int c = 0; long last = System.nanoTime();
                        ByteBuffer rd = region.duplicate();
                        for (long i = 1; i <= rounds; i++) { while (posted.get() != i) Thread.onSpinWait(); long t = System.nanoTime(); rd.get(4096, dst, 0, block); long e = System.nanoTime(); if (i > rounds / 4) { sum += e - t; rs += e - last; c++; } last = e; acked.set(i); }
                        r = (double) sum / c; round = (double) rs / c; });
                    wt.start(); rt.start(); wt.join(); rt.join();
                    System.out.printf("%7d %-28s write %8.2f us, read %8.2f us, round %8.2f us%n", block, names[mode], w / 1000, r / 1000, round / 1000);
                }
            }
        } finally { Files.deleteIfExists(p); }
    }
}
