import java.net.*; import java.nio.*; import java.nio.channels.*; import java.nio.file.*; import java.util.*; import java.util.concurrent.locks.LockSupport;
public class WakeProbe {
  public static void main(String[] a) throws Exception {
    Path p = Path.of("/tmp/probe/sock");
    String role=a[0], mode=a[1]; int n=Integer.parseInt(a[2]); long pause=Long.parseLong(a[3])*1000;
    ByteBuffer b = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
    if (role.equals("sleeper")) {
      Files.deleteIfExists(p);
      ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX); s.bind(UnixDomainSocketAddress.of(p));
      SocketChannel c = s.accept();
      Selector sel = null;
      if (mode.equals("select")) { c.configureBlocking(false); sel = Selector.open(); c.register(sel, SelectionKey.OP_READ); }
      for (int i=0;i<n;i++) {
        b.clear();
        if (sel != null) { while (b.hasRemaining()) { sel.select(100); sel.selectedKeys().clear(); c.read(b);} }
        else { while (b.hasRemaining()) c.read(b); }
        long d = System.nanoTime() - b.getLong(0);
        b.clear(); b.putLong(0, d); while (b.hasRemaining()) c.write(b);
      }
    } else {
      SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(p));
      if (mode.equals("spin")) c.configureBlocking(false);
      long[] r = new long[n];
      for (int i=0;i<n;i++) {
        LockSupport.parkNanos(pause);
        b.clear(); b.putLong(0, System.nanoTime()); c.write(b);
        b.clear(); while (b.hasRemaining()) { if (c.read(b)==0) Thread.onSpinWait(); }
        r[i]=b.getLong(0);
      }
      Arrays.sort(r, n/10, n); long[] s = Arrays.copyOfRange(r, n/10, n); 
      System.out.printf("%s: p50 %.1f p99 %.1f us%n", mode, s[s.length/2]/1e3, s[s.length*99/100]/1e3);
    }
  }
}
