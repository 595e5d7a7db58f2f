package io.sm4j.window;

import io.sm4j.layout.WindowChunkDescriptor;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A window's large put or get split between its origin and its target ({@link SplitCopy}), on off-heap
 * memory as in a buffer's file, in chunks of one long so that a race shows: the origin has opened the copy
 * (and, in the protocol, sent the request that the helper acts on); both claim and copy chunks at once; the
 * origin, once {@link SplitCopy#helped} says the helper is done, must see every chunk's bytes, and every
 * chunk must have been copied exactly once.
 */
public final class SplitCopyStress
{
    private static final int CHUNKS = 4;

    private SplitCopyStress()
    {
    }

    @JCStressTest
    @Outcome(id = "4, 0", expect = ACCEPTABLE, desc = "The origin copied every chunk; the helper came late.")
    @Outcome(id = "4, 4", expect = ACCEPTABLE, desc = "The helper copied every chunk before the origin claimed one.")
    @Outcome(id = {"4, 1", "4, 2", "4, 3"}, expect = ACCEPTABLE_INTERESTING, desc = "Both copied: every chunk seen, once.")
    @Outcome(expect = FORBIDDEN, desc = "A chunk missed or copied twice, or the helper's bytes not visible to the origin.")
    @State
    public static class OriginSeesEveryChunkOnce
    {
        private final UnsafeBuffer header = new UnsafeBuffer(BufferUtil.allocateDirectAligned(WindowChunkDescriptor.PAYLOAD_OFFSET, 64));
        private final UnsafeBuffer from = new UnsafeBuffer(BufferUtil.allocateDirectAligned(CHUNKS * Long.BYTES, 64));
        private final UnsafeBuffer to = new UnsafeBuffer(BufferUtil.allocateDirectAligned(CHUNKS * Long.BYTES, 64));
        private final long sequence;
        private int helperCopied;

        public OriginSeesEveryChunkOnce()
        {
            for (int i = 0; i < CHUNKS; i++)
            {
                from.putLong(i * Long.BYTES, 100 + i);
            }
            sequence = SplitCopy.open(header);
        }

        @Actor
        public void origin(final II_Result r)
        {
            final int own = SplitCopy.copyOwn(header, sequence, to, 0, from, 0, CHUNKS * Long.BYTES, Long.BYTES);
            while (!SplitCopy.helped(header, sequence, CHUNKS, own))
            {
                Thread.onSpinWait();
            }
            int seen = 0;
            for (int i = 0; i < CHUNKS; i++)
            {
                seen += to.getLong(i * Long.BYTES) == 100 + i ? 1 : 0; // plain: helped()'s acquire orders them
            }
            r.r1 = seen;
            r.r2 = CHUNKS - own; // the helper's chunks by the origin's count; checked against its own below
        }

        @Actor
        public void helper(final II_Result r)
        {
            helperCopied = SplitCopy.help(header, sequence, to, 0, from, 0, CHUNKS * Long.BYTES, Long.BYTES);
        }

        @org.openjdk.jcstress.annotations.Arbiter
        public void check(final II_Result r)
        {
            if (helperCopied != r.r2)
            {
                r.r1 = -1; // the two counts disagree: a chunk claimed twice or by nobody
            }
        }
    }
}
