// The write into shared memory, in Java: 64 KiB into a region the reader read last round, by the JVM's copy and by
// the C library's memcpy through a critical FFM downcall (JDK 22+). docs/benchmarks.md, "The write into shared memory".
// /usr/lib/jvm/temurin-25-jdk-amd64/bin/java --enable-native-access=ALL-UNNAMED docs/NativeCopyProbe.java
import java.lang.foreign.*;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.atomic.AtomicLong;

public class NativeCopyProbe {
    static final int BLOCK = 65536, ROUNDS = 20000;
    static final MemorySegment region = Arena.global().allocate(BLOCK, 4096), src = Arena.global().allocate(BLOCK, 4096), dst = Arena.global().allocate(BLOCK, 4096);
    static final byte[] heap = new byte[BLOCK];
    static final AtomicLong posted = new AtomicLong(), acked = new AtomicLong();
    static final MethodHandle MEMCPY;
    static {
        Linker l = Linker.nativeLinker();
        MEMCPY = l.downcallHandle(l.defaultLookup().find("memcpy").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG), Linker.Option.critical(false));
    }
    static double w, r, round;
    public static void main(String[] a) throws Exception {
        String[] names = {"MemorySegment.copy (the JVM's copy)", "memcpy downcall, off-heap source", "MemorySegment.copy from byte[]"};
        for (int rep = 0; rep < 3; rep++) for (int mode = 0; mode < 3; mode++) {
            posted.set(0); acked.set(0); final int m = mode;
            Thread wt = new Thread(() -> { long sum = 0; int c = 0;
                for (long i = 1; i <= ROUNDS; i++) { while (acked.get() != i - 1) Thread.onSpinWait(); long t = System.nanoTime();
                    try { if (m == 0) MemorySegment.copy(src, 0, region, 0, BLOCK); else if (m == 1) { long x = (long) MEMCPY.invokeExact(region.address(), src.address(), (long) BLOCK); } else MemorySegment.copy(heap, 0, region, ValueLayout.JAVA_BYTE, 0, BLOCK); } catch (Throwable e) { throw new RuntimeException(e); }
                    long e = System.nanoTime(); if (i > ROUNDS / 4) { sum += e - t; c++; } posted.set(i); } w = (double) sum / c; });
            Thread rt = new Thread(() -> { long sum = 0, rs = 0; int c = 0; long last = System.nanoTime();
                for (long i = 1; i <= ROUNDS; i++) { while (posted.get() != i) Thread.onSpinWait(); long t = System.nanoTime(); MemorySegment.copy(region, 0, dst, 0, BLOCK); long e = System.nanoTime(); if (i > ROUNDS / 4) { sum += e - t; rs += e - last; c++; } last = e; acked.set(i); }
                r = (double) sum / c; round = (double) rs / c; });
            wt.start(); rt.start(); wt.join(); rt.join();
            System.out.printf("%-40s write %.2f us, read %.2f us, round %.2f us%n", names[mode], w / 1000, r / 1000, round / 1000);
        }
    }
}
