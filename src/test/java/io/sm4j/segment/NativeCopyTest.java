package io.sm4j.segment;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The setting's checks, and the copy as the JVM makes it (this build's JDK 17; {@code NativeCopyJobTest} runs
 * the native one on a JDK 22+).
 */
class NativeCopyTest
{
    @Test
    void shouldRefuseAnUnknownSettingInOneLine()
    {
        NativeCopy.check(null);
        NativeCopy.check("java");
        assertEquals("SM4J_COPY=fast (expected: java or native)",
            assertThrows(BadSettingException.class, () -> NativeCopy.check("fast")).getMessage());
    }

    @Test
    void shouldRefuseNativeWhereThisJvmHasNoDowncalls()
    {
        Assumptions.assumeTrue(Runtime.version().feature() < 22, "this JVM can call memcpy");
        assertEquals("SM4J_COPY=native, but this JVM cannot call memcpy: JDK " + Runtime.version().feature() +
                " has no foreign function API, JDK 22+ has",
            assertThrows(BadSettingException.class, () -> NativeCopy.check("native")).getMessage());
        assertEquals("SM4J_COPY=native, but ranks on this JDK cannot call memcpy: JDK " + Runtime.version().feature() +
                " has no foreign function API, JDK 22+ has",
            assertThrows(BadSettingException.class, () -> NativeCopy.checkForRanks("native")).getMessage());
        assertEquals("java", NativeCopy.describe());
    }

    @Test
    void shouldCopyEveryByteBetweenHeapAndDirectBuffers()
    {
        final int length = NativeCopy.MIN_BYTES + 13;
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++)
        {
            bytes[i] = (byte)(i * 7 + 3);
        }
        final UnsafeBuffer heap = new UnsafeBuffer(bytes);
        final UnsafeBuffer direct = new UnsafeBuffer(ByteBuffer.allocateDirect(length + 5));
        NativeCopy.putBytes(direct, 5, heap, 0, length);
        final UnsafeBuffer back = new UnsafeBuffer(ByteBuffer.allocateDirect(length));
        NativeCopy.putBytes(back, 0, direct, 5, length);
        final byte[] out = new byte[length];
        back.getBytes(0, out);
        assertArrayEquals(bytes, out);
        assertThrows(IndexOutOfBoundsException.class, () -> NativeCopy.putBytes(back, 1, direct, 0, length));
    }
}
