package io.sm4j.layout;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class LayoutParamsTest
{
    private static String rejection(final LayoutParams.Builder builder)
    {
        return assertThrows(IllegalArgumentException.class, builder::build).getMessage();
    }

    @Test
    void shouldNameEachInvalidParameterWithItsValueAndLimit()
    {
        assertEquals("peers=0 (expected: 1..4096)", rejection(LayoutParams.builder(0)));
        assertEquals("peers=4097 (expected: 1..4096)", rejection(LayoutParams.builder(4097)));
        assertEquals("queueEntries=100 (expected: a power of two)", rejection(LayoutParams.builder(4).queueEntries(100)));
        assertEquals("cacheline=96 (expected: a power of two)", rejection(LayoutParams.builder(4).cacheline(96)));
        assertEquals("eagerLimit=65536 (expected: <= maxFragSize=32768)", rejection(LayoutParams.builder(4).eagerLimit(65536)));
        assertEquals("pageSize=3000 (expected: a power of two)", rejection(LayoutParams.builder(4).pageSize(3000)));
        assertEquals("eagerFragsPerPeer=0 (expected: >= 1)", rejection(LayoutParams.builder(4).eagerFragsPerPeer(0)));
        assertEquals("eagerLimit=8 (expected: >= 64)", rejection(LayoutParams.builder(4).eagerLimit(8)));
    }

    @Test
    void shouldRoundTripThroughTheSegmentHeaderEncoding()
    {
        final LayoutParams params = LayoutParams.builder(7).policy(Policy.PAGE).threadMode(ThreadMode.MULTIPLE)
            .pageSize(8192).queueEntries(16).build();
        assertEquals(params, SegmentHeaderDescriptor.decodeParams(SegmentHeaderDescriptor.encodeParams(params)));
    }

    @Test
    void shouldRejectAnUnknownPolicyOrdinalFromAHeader()
    {
        final int[] words = SegmentHeaderDescriptor.encodeParams(LayoutParams.defaults(3));
        words[9] = 7;
        assertEquals("policy ordinal=7 (expected: 0..2)",
            assertThrows(IllegalArgumentException.class, () -> SegmentHeaderDescriptor.decodeParams(words)).getMessage());
    }
}
