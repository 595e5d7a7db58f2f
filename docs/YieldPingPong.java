// Reference for docs/benchmarks.md (issue 20): two pairs of JVMs ping-pong through one mapped page, waiting with Thread.yield (or spinning), to see what the scheduler alone gives. javac YieldPingPong.java; then 4 processes: java -Dwork=0 YieldPingPong RANK 200000 yield (RANK 0..3, same /dev/shm/pp-test file).
import java.nio.*; import java.nio.channels.*; import java.nio.file.*; import java.lang.invoke.*;
public class YieldPingPong {
  static final VarHandle L = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
  static final int WORK = Integer.getInteger("work", 0); static long sink;
  static void busy() { long x = sink; for (int i=0;i<WORK;i++) x = x*31+i; sink = x; }
  public static void main(String[] a) throws Exception {
    int rank = Integer.parseInt(a[0]); int n = Integer.parseInt(a[1]); boolean yield = a[2].equals("yield");
    FileChannel ch = FileChannel.open(Path.of("/dev/shm/pp-test"), StandardOpenOption.READ, StandardOpenOption.WRITE, StandardOpenOption.CREATE);
    MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_WRITE, 0, 4096);
    int pair = rank % 2; boolean sender = rank < 2; int out = pair*1024 + (sender?0:512), in = pair*1024 + (sender?512:0);
    long[] ev = new long[200]; int k=0;
    for (int phase=0; phase<2; phase++) {
      long t0=System.nanoTime(), prev=t0;
      for (long i=1;i<=n;i++) {
        long seq = phase*1_000_000_000L + i;
        if (sender) { L.setRelease(m, out, seq); while ((long)L.getAcquire(m, in) != seq) { if (yield) { busy(); Thread.yield(); } else Thread.onSpinWait(); } }
        else { while ((long)L.getAcquire(m, in) != seq) { if (yield) { busy(); Thread.yield(); } else Thread.onSpinWait(); } L.setRelease(m, out, seq); }
        long now=System.nanoTime(); if (phase==1 && now-prev>100_000 && k<ev.length) {ev[k++]=(now-t0)/100_000; ev[k++]=(now-prev)/1000;} prev=now;
      }
      if (phase==1 && sender) { StringBuilder sb=new StringBuilder(); for (int i=0;i<k;i+=2) sb.append(ev[i]/10.0).append(":").append(ev[i+1]).append(" ");
        System.out.println("rank "+rank+" mean one-way "+(System.nanoTime()-t0)/2.0/n/1000+" us; stalls "+sb); }
    }
  }
}
