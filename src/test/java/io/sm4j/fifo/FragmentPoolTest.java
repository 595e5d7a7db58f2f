package io.sm4j.fifo;

import io.sm4j.layout.LayoutParams;
import io.sm4j.layout.SegmentLayout;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Rank 1's pool of max-size fragments: every fragment handed out once until returned, the latest return
 * reused first, and untrusted returns (another rank's, an eager one, one not handed out, a duplicate)
 * refused without changing the pool.
 */
class FragmentPoolTest
{
    private final SegmentLayout layout = SegmentLayout.compute(LayoutParams.builder(2).build());
    private final FragmentPool pool = new FragmentPool(layout, 1);

    @Test
    void everyFragmentShouldBeHandedOutOnceUntilReturned()
    {
        final Set<Long> out = new HashSet<>();
        long fragment;
        while ((fragment = pool.acquire()) >= 0)
        {
            assertTrue(out.add(fragment), "handed out twice: " + fragment);
            assertEquals(1, layout.fragmentOwner(fragment));
        }
        assertEquals(layout.maxFragmentCount(), out.size());
        final long returned = out.iterator().next();
        assertTrue(pool.release(returned));
        assertEquals(returned, pool.acquire(), "the latest return first");
        assertEquals(-1, pool.acquire());
    }

    @Test
    void untrustedReturnsShouldBeRefused()
    {
        final long fragment = pool.acquire();
        assertFalse(pool.release(layout.maxFragmentOffset(0, 0)), "rank 0's fragment");
        assertFalse(pool.release(layout.eagerFragmentOffset(1, 0, 0)), "an eager fragment");
        assertFalse(pool.release(layout.maxFragmentOffset(1, 1)), "never handed out");
        assertTrue(pool.release(fragment));
        assertFalse(pool.release(fragment), "returned twice");
        int free = 0;
        while (pool.acquire() >= 0)
        {
            free++;
        }
        assertEquals(layout.maxFragmentCount(), free, "the refusals changed nothing");
    }
}
