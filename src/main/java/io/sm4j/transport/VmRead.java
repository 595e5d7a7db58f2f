package io.sm4j.transport;

import io.sm4j.segment.Downcalls;
import io.sm4j.segment.IncubatorLinker;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Optional;

/**
 * Linux's {@code process_vm_readv} through a JDK 22+ downcall ({@link Downcalls}), or on JDK 17 through its
 * incubating linker where the JVM resolved that module ({@link IncubatorLinker}): the kernel copies a peer
 * process's pages straight into this process's memory, one copy, as Open MPI's vader does with CMA; reading
 * {@code /proc/PID/mem} ({@link PeerMemory}'s way for a JVM with neither linker) copies each page twice, through a
 * page of the kernel's. A call that fails (not allowed, no such process, an address not mapped) returns -1 instead of
 * faulting.
 * <pre>
 *   two iovecs, in native order, in a direct buffer of their own
 *   +----------------------------+----------------------------+----------------------------+-------------------+
 *   | local base (8)             | local length (8)           | remote base (8)            | remote length (8) |
 *   +----------------------------+----------------------------+----------------------------+-------------------+
 * </pre>
 */
final class VmRead
{
    /** A call copies at most this much: the downcall is critical, and the collector waits for it to return. */
    private static final int MAX_CALL_BYTES = 1 << 20;
    private static final MethodHandle READV = link();
    private final ByteBuffer iovecs = ByteBuffer.allocateDirect(4 * Long.BYTES).order(ByteOrder.nativeOrder());
    private final long local = org.agrona.BufferUtil.address(iovecs);
    private final long remote = local + 2 * Long.BYTES;

    /**
     * @return a reader, or null if this JVM cannot call {@code process_vm_readv} (JDK 17 without the incubating
     *         module, JDK 18-21, native access off, or no such function).
     */
    static VmRead create()
    {
        return READV == null ? null : new VmRead();
    }

    /**
     * Copies {@code length} bytes at {@code address} of process {@code pid} to {@code into}, an address of this
     * process.
     *
     * @return false if they could not all be copied.
     */
    boolean read(final long pid, final long address, final long into, final int length)
    {
        for (int done = 0; done < length; )
        {
            final long chunk = Math.min(MAX_CALL_BYTES, length - done);
            iovecs.putLong(0, into + done).putLong(Long.BYTES, chunk)
                .putLong(2 * Long.BYTES, address + done).putLong(3 * Long.BYTES, chunk);
            final long copied;
            try
            {
                copied = (long)READV.invokeExact((int)pid, local, 1L, remote, 1L, 0L);
            }
            catch (final Throwable unexpected)
            {
                throw new IllegalStateException("process_vm_readv", unexpected);
            }
            if (copied <= 0)
            {
                return false;
            }
            done += (int)copied;
        }
        return true;
    }

    private static MethodHandle link()
    {
        try
        {
            final Optional<MethodHandle> readv = Downcalls.unavailableReason(true) == null ?
                Downcalls.link("process_vm_readv", new String[]{
                    "JAVA_LONG", "JAVA_INT", "JAVA_LONG", "JAVA_LONG", "JAVA_LONG", "JAVA_LONG", "JAVA_LONG"}, "critical", false) :
                IncubatorLinker.link("process_vm_readv", MethodType.methodType(long.class, int.class, long.class, long.class,
                    long.class, long.class, long.class), new String[]{"C_LONG", "C_INT", "C_LONG", "C_LONG", "C_LONG", "C_LONG", "C_LONG"});
            return readv.orElse(null);
        }
        catch (final ReflectiveOperationException | RuntimeException | LinkageError ex)
        {
            System.getLogger("io.sm4j").log(System.Logger.Level.WARNING, "no process_vm_readv (" + ex + ")");
            return null;
        }
    }
}
