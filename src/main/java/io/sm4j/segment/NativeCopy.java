package io.sm4j.segment;

import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Optional;

/**
 * Large copies into the segment, by the JVM or, with {@code SM4J_COPY=native} on JDK 22+, by the C library's
 * {@code memcpy} through a critical downcall ({@link Downcalls}). The JVM's copy writes with vector stores,
 * each of which first fetches its line for ownership from the core that read it last (the reader of the
 * last message or collective step); {@code memcpy} ({@code rep movsb} where the CPU has ERMS) writes whole
 * lines without fetching them: a 64 KiB write into lines the reader holds took 2.1 us against 0.8 (Java, JDK
 * 25), and 11.5-12.0 against 0.8-2.1 in this machine's slower mode (C; docs/benchmarks.md, "The write into
 * shared memory"). A copy goes in pieces of at most {@link #PIECE_BYTES}: a critical downcall holds off the
 * collector until it returns.
 * <p>
 * Not the default: a copy into a mapping whose file another process truncated raises SIGBUS in native code,
 * which crashes the JVM, where the JVM's own copy raises an {@link InternalError} that sm4j reports in one
 * line. Only copies of {@link #MIN_BYTES} or more go native; from a heap array, through a critical downcall
 * (the collector waits for it to return).
 */
public final class NativeCopy
{
    public static final String ENV = "SM4J_COPY";
    /** Shorter copies go through the JVM either way: a downcall costs tens of nanoseconds. */
    public static final int MIN_BYTES = 4096;
    /** The most one downcall copies (about 100 us), so that a collection waits no longer for it. */
    static final int PIECE_BYTES = 1 << 20;

    private NativeCopy()
    {
    }

    /**
     * Copies {@code length} bytes of {@code src} from {@code srcIndex} into {@code dst} at {@code dstIndex},
     * as {@link MutableDirectBuffer#putBytes(int, DirectBuffer, int, int)} does.
     */
    public static void putBytes(
        final MutableDirectBuffer dst, final int dstIndex, final DirectBuffer src, final int srcIndex, final int length)
    {
        final MethodHandle memcpy = Chosen.MEMCPY;
        if (memcpy == null || length < MIN_BYTES || dst.byteArray() != null)
        {
            Buffers.putBytes(dst, dstIndex, src, srcIndex, length);
            return;
        }
        dst.boundsCheck(dstIndex, length);
        src.boundsCheck(srcIndex, length);
        final byte[] array = src.byteArray();
        try
        {
            for (int done = 0; done < length; done += PIECE_BYTES)
            {
                final long piece = Math.min(PIECE_BYTES, length - done);
                if (array == null)
                {
                    final long ignored = (long)memcpy.invokeExact(dst.addressOffset() + dstIndex + done,
                        src.addressOffset() + srcIndex + done, piece);
                }
                else
                {
                    // a heap array: passed as a segment of it to a critical downcall, during which it cannot move
                    final long ignored = (long)Chosen.FROM_ARRAY.invokeExact(dst.addressOffset() + dstIndex + done,
                        array, src.addressOffset() - BufferUtil.ARRAY_BASE_OFFSET + srcIndex + done, piece);
                }
            }
        }
        catch (final Throwable unexpected)
        {
            throw new IllegalStateException("memcpy downcall failed", unexpected);
        }
    }

    /**
     * @return how this JVM copies into the segment: "native (memcpy)" or "java".
     */
    public static String describe()
    {
        return Chosen.MEMCPY != null ? "native (memcpy)" : "java";
    }

    /**
     * @param setting the value of {@link #ENV}, or null.
     * @throws BadSettingException for a value other than java or native, or native where this JVM cannot call
     *                             {@code memcpy}, naming the reason.
     */
    public static void check(final String setting)
    {
        check(setting, true);
    }

    private static void check(final String setting, final boolean ofThisJvm)
    {
        if (setting != null && !setting.isBlank() && !setting.equals("java") && !setting.equals("native"))
        {
            throw new BadSettingException(ENV + "=" + setting + " (expected: java or native)");
        }
        if ("native".equals(setting))
        {
            final String reason = Downcalls.unavailableReason(ofThisJvm);
            if (reason != null || ofThisJvm && Chosen.MEMCPY == null)
            {
                throw new BadSettingException(ENV + "=native, but " + (ofThisJvm ? "this JVM" : "ranks on this JDK") +
                    " cannot call memcpy: " + (reason == null ? "linking it failed (logged)" : reason));
            }
        }
    }

    /**
     * For a launcher, before it starts any rank: the ranks it starts run on this JVM's JDK, with native access.
     *
     * @param setting the value of {@link #ENV} the ranks get, or null.
     * @throws BadSettingException for a bad value, or native where such ranks cannot call {@code memcpy}.
     */
    public static void checkForRanks(final String setting)
    {
        check(setting, false);
    }

    /**
     * The choice, made once per JVM at the first large copy or check.
     */
    private static final class Chosen
    {
        /** {@code (long to, long from, long length) long}; null: the JVM copies. */
        static final MethodHandle MEMCPY;
        /** {@code (long to, byte[] from, long index, long length) long}; set with {@link #MEMCPY}. */
        static final MethodHandle FROM_ARRAY;

        static
        {
            final MethodHandle[] linked = link(System.getenv(ENV));
            MEMCPY = linked[0];
            FROM_ARRAY = linked[1];
        }

        private Chosen()
        {
        }

        /**
         * Builds {@code memcpy} with a source address, and {@code memcpy} with a heap source
         * ({@code Linker.Option.critical(true)}) fed {@code MemorySegment.ofArray(from).asSlice(index)}.
         */
        private static MethodHandle[] link(final String setting)
        {
            final MethodHandle[] none = {null, null};
            if (!"native".equals(setting) || Downcalls.unavailableReason(true) != null)
            {
                return none;
            }
            try
            {
                final Optional<MethodHandle> addresses = Downcalls.link("memcpy",
                    new String[]{"JAVA_LONG", "JAVA_LONG", "JAVA_LONG", "JAVA_LONG"}, "critical", false);
                final Optional<MethodHandle> heap = Downcalls.link("memcpy",
                    new String[]{"JAVA_LONG", "JAVA_LONG", "ADDRESS", "JAVA_LONG"}, "critical", true);
                if (addresses.isEmpty() || heap.isEmpty())
                {
                    return none;
                }
                final Class<?> segment = Class.forName("java.lang.foreign.MemorySegment");
                final MethodHandles.Lookup lookup = MethodHandles.publicLookup();
                final MethodHandle slice = MethodHandles.filterArguments(
                    lookup.findVirtual(segment, "asSlice", MethodType.methodType(segment, long.class)), 0,
                    lookup.findStatic(segment, "ofArray", MethodType.methodType(segment, byte[].class)));
                return new MethodHandle[]{addresses.get(), MethodHandles.collectArguments(heap.get(), 1, slice)};
            }
            catch (final ReflectiveOperationException | RuntimeException | LinkageError ex)
            {
                System.getLogger("io.sm4j").log(System.Logger.Level.WARNING, "no native copy (" + ex + ")");
                return none;
            }
        }
    }
}
