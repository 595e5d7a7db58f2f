// One core copying between two 64-byte-aligned direct buffers with UnsafeBuffer.putBytes, sizes 8 KiB to 4 MiB, 3 rounds; the Java side of docs/memcpy-loop.c (docs/windows.md).
// javac -cp target/sm4j.jar -d /tmp/probe docs/MemcpyLoop.java && java --add-opens java.base/jdk.internal.misc=ALL-UNNAMED -cp target/sm4j.jar:/tmp/probe MemcpyLoop
import org.agrona.concurrent.UnsafeBuffer; import org.agrona.BufferUtil;
public class MemcpyLoop { public static void main(String[] x){ int[] sizes={8192,32768,65536,262144,1048576,4194304};
 UnsafeBuffer a=new UnsafeBuffer(BufferUtil.allocateDirectAligned(1<<23,64)), b=new UnsafeBuffer(BufferUtil.allocateDirectAligned(1<<23,64)); a.setMemory(0,1<<23,(byte)1); b.setMemory(0,1<<23,(byte)2);
 for(int r=0;r<3;r++) for(int s: sizes){ long it=(long)(2e9/s); if(it>2000000)it=2000000; long t0=System.nanoTime(); for(long i=0;i<it;i++){ b.putBytes(0,a,0,s);} double t=(System.nanoTime()-t0)/(double)it; System.out.printf("J %d %.3f us%n",s,t/1000);} } }
