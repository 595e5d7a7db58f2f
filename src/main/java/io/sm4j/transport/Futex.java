package io.sm4j.transport;

import io.sm4j.segment.BadSettingException;
import io.sm4j.segment.Downcalls;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Linux's futex on a word of the shared mapping, called through the Foreign Function and Memory API of JDK
 * 22 and later: a thread blocks in {@code FUTEX_WAIT} while the word holds the value it expects, and another
 * process wakes it with {@code FUTEX_WAKE} on the same word. Shared (not {@code FUTEX_PRIVATE_FLAG}): the
 * kernel keys the wait on the file's page, so ranks in different processes meet on it.
 * <p>
 * The downcall is built once ({@link Downcalls}), as a method handle of type
 * {@code (long, long, int, int, long, long, int) long}. {@link #forSetting} gives none where
 * that is not possible (JDK 17-21, another OS or architecture, or native access not enabled: JDK 22+ warns
 * on a restricted call without {@code --enable-native-access=ALL-UNNAMED}, which sm4j's launchers pass).
 * <p>
 * A syscall on an address that is no longer mapped returns EFAULT instead of faulting: a ring that races a
 * peer's unmap is harmless.
 */
final class Futex
{
    private static final int FUTEX_WAIT = 0;
    private static final int FUTEX_WAKE = 1;
    /** Of a 64-bit word in native order, the byte offset of its low 32 bits: the half a futex compares. */
    private static final int LOW_HALF = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? 0 : Integer.BYTES;

    private final MethodHandle syscall;
    private final long futexNumber;
    /**
     * The relative timeout of a wait: struct timespec { long tv_sec; long tv_nsec; }. One sleeper at a time
     * writes it; a stale sleeper's role taken in MULTIPLE mode may race the taker, and each then waits with
     * one of the two timeouts, both bounded by the health interval.
     */
    private final UnsafeBuffer timespec = new UnsafeBuffer(ByteBuffer.allocateDirect(2 * Long.BYTES));

    private Futex(final MethodHandle syscall, final long futexNumber)
    {
        this.syscall = syscall;
        this.futexNumber = futexNumber;
    }

    /**
     * @return a futex caller for {@code bell}, or null: SOCKET, or AUTO where this JVM cannot call one.
     * @throws BadSettingException for FUTEX where this JVM cannot call one, naming the reason.
     */
    static Futex forSetting(final TransportOptions.Bell bell)
    {
        if (bell == TransportOptions.Bell.SOCKET)
        {
            return null;
        }
        final String reason = unavailableReason(true);
        final Futex futex = reason == null && Linked.SYSCALL != null ? new Futex(Linked.SYSCALL, syscallNumber()) : null;
        if (futex == null && bell == TransportOptions.Bell.FUTEX)
        {
            throw refused("this JVM", reason == null ? "linking it failed (logged)" : reason);
        }
        return futex;
    }

    /**
     * @return the one-line refusal of {@code SM4J_DOORBELL=futex} where {@code who} cannot call a futex.
     */
    static BadSettingException refused(final String who, final String reason)
    {
        return new BadSettingException(TransportOptions.BELL_ENV + "=futex, but " + who + " cannot call a futex: " + reason);
    }

    /**
     * @param ofThisJvm also whether this JVM was started with native access (a JVM that sm4j starts is).
     * @return why this JVM (or a JVM of the same JDK started by sm4j) cannot call a futex, or null if it can.
     */
    static String unavailableReason(final boolean ofThisJvm)
    {
        if (!System.getProperty("os.name").startsWith("Linux"))
        {
            return "not Linux";
        }
        if (syscallNumber() < 0)
        {
            return "no futex syscall number for " + System.getProperty("os.arch");
        }
        return Downcalls.unavailableReason(ofThisJvm);
    }

    /**
     * Blocks the calling thread while the low half of the word at {@code address} holds {@code expected},
     * until {@link #wake} or {@code timeoutNanos}; returns at once if it holds another value.
     */
    void await(final long address, final int expected, final long timeoutNanos)
    {
        timespec.putLong(0, timeoutNanos / 1_000_000_000L, ByteOrder.nativeOrder());
        timespec.putLong(Long.BYTES, timeoutNanos % 1_000_000_000L, ByteOrder.nativeOrder());
        call(address + LOW_HALF, FUTEX_WAIT, expected, timespec.addressOffset());
    }

    /**
     * Wakes every thread blocked on the word at {@code address}.
     */
    void wake(final long address)
    {
        call(address + LOW_HALF, FUTEX_WAKE, Integer.MAX_VALUE, 0L);
    }

    private void call(final long address, final int op, final int value, final long timeout)
    {
        try
        {
            // the result (woken, EAGAIN for another value, ETIMEDOUT, EINTR, EFAULT) does not matter: every
            // caller looks at the word itself afterwards, and a wait is bounded by its timeout
            final long ignored = (long)syscall.invokeExact(futexNumber, address, op, value, timeout, 0L, 0);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("futex call failed", ex);
        }
    }

    /**
     * @return SYS_futex on this architecture, or -1 if not known here.
     */
    private static long syscallNumber()
    {
        switch (System.getProperty("os.arch"))
        {
            case "amd64", "x86_64" ->
            {
                return 202;
            }
            case "aarch64" ->
            {
                return 98;
            }
            default ->
            {
                return -1;
            }
        }
    }

    /**
     * The downcall, linked once per JVM at its first use (every rank of a ThreadJob shares it; each has its own
     * {@link Futex} for its timeout).
     */
    private static final class Linked
    {
        /** Null if linking failed (logged). */
        static final MethodHandle SYSCALL = link();

        private Linked()
        {
        }
    }

    /**
     * Builds {@code Linker.nativeLinker().downcallHandle(syscall, FunctionDescriptor.of(JAVA_LONG, JAVA_LONG,
     * JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT), Linker.Option.firstVariadicArg(1))}.
     *
     * @return null if any step fails (logged).
     */
    private static MethodHandle link()
    {
        try
        {
            return Downcalls.link("syscall",
                new String[]{"JAVA_LONG", "JAVA_LONG", "JAVA_LONG", "JAVA_INT", "JAVA_INT", "JAVA_LONG", "JAVA_LONG", "JAVA_INT"},
                "firstVariadicArg", 1).orElse(null);
        }
        catch (final ReflectiveOperationException | RuntimeException | LinkageError ex)
        {
            System.getLogger("io.sm4j").log(System.Logger.Level.WARNING, "no futex (" + ex + "): ranks sleep on sockets");
            return null;
        }
    }
}
