import java.lang.foreign.*; import java.lang.invoke.*; import java.nio.channels.FileChannel; import java.nio.file.*; import java.util.*; import java.util.concurrent.locks.LockSupport;
import static java.lang.foreign.ValueLayout.*;
/** Wake-up of a JVM thread blocked in futex(FUTEX_WAIT) on a word of a shared mapping, woken by another JVM. */
public class FutexWakeProbe {
  static final MethodHandle SYSCALL = Linker.nativeLinker().downcallHandle(
      Linker.nativeLinker().defaultLookup().find("syscall").orElseThrow(),
      FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT),
      Linker.Option.firstVariadicArg(1));
  static long futex(long addr, int op, int val, long ts) throws Throwable {
    return (long) SYSCALL.invokeExact(202L, addr, op, val, ts, 0L, 0);
  }
  public static void main(String[] a) throws Throwable {
    String role = a[0]; int n = Integer.parseInt(a[1]); long pause = Long.parseLong(a[2]) * 1000;
    Path p = Path.of("/dev/shm/futex-probe");
    try (FileChannel ch = FileChannel.open(p, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE); Arena arena = Arena.ofShared()) {
      MemorySegment m = ch.map(FileChannel.MapMode.READ_WRITE, 0, 4096, arena);
      MemorySegment ts = arena.allocate(16); ts.set(JAVA_LONG, 0, 0); ts.set(JAVA_LONG, 8, 100_000_000L);
      VarHandle I = JAVA_INT.varHandle(); VarHandle L = JAVA_LONG.varHandle();
      long sleeperWord = m.address(), timerWord = m.address() + 64;
      // sleeper word at 0: 1 armed, 2 rung; timestamp at 8; timer word at 64, reply at 72
      if (role.equals("sleeper")) {
        for (int i = 0; i < n; i++) {
          I.setVolatile(m, 0L, 1);
          while ((int) I.getVolatile(m, 0L) == 1) futex(sleeperWord, 0, 1, ts.address());
          long d = System.nanoTime() - (long) L.getVolatile(m, 8L);
          L.setVolatile(m, 72L, d);
          if ((int) I.compareAndExchange(m, 64L, 1, 2) == 1) futex(timerWord, 1, 1, 0L);
        }
      } else {
        long[] r = new long[n];
        for (int i = 0; i < n; i++) {
          LockSupport.parkNanos(pause);
          I.setVolatile(m, 64L, 1);
          L.setVolatile(m, 8L, System.nanoTime());
          while ((int) I.compareAndExchange(m, 0L, 1, 2) != 1) Thread.onSpinWait(); // the sleeper armed
          futex(sleeperWord, 1, 1, 0L);
          while ((int) I.getVolatile(m, 64L) == 1) futex(timerWord, 0, 1, ts.address());
          r[i] = (long) L.getVolatile(m, 72L);
        }
        Arrays.sort(r, n / 10, n); long[] s = Arrays.copyOfRange(r, n / 10, n);
        System.out.printf("futex: p50 %.1f p99 %.1f us%n", s[s.length / 2] / 1e3, s[s.length * 99 / 100] / 1e3);
      }
    }
  }
}
