package io.sm4j.window;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.AtomicBuffer;

import static io.sm4j.layout.WindowChunkDescriptor.HELP_CLAIM_OFFSET;
import static io.sm4j.layout.WindowChunkDescriptor.HELP_DONE_OFFSET;

/**
 * One large copy made by two ranks at once: a window's {@code put} or {@code get} between the origin's
 * shared buffer and the target's part, which the target helps with while it polls (when both ranks can run
 * at once). The range is cut into at most {@value #MAX_CHUNKS} chunks; each rank claims the next chunk with a
 * CAS on the claim word in the header of the origin's buffer and copies it. The origin opens a copy by
 * release-storing a new sequence in the claim word, asks the target by a message, and claims and copies
 * chunks until none is left; the helper, on the message, does the same and release-stores in the helped
 * word how many chunks it has copied. The origin returns once that word says every chunk the helper took
 * (the chunks less its own) is copied: it never waits for a rank that is not copying, because a helper that
 * comes late finds every chunk claimed, or a newer sequence, and takes none.
 * <pre>
 *   claim word  (origin's buffer, header HELP_CLAIM_OFFSET): sequence (high 32) | next chunk (low 32)
 *   helped word (origin's buffer, header HELP_DONE_OFFSET):  sequence (high 32) | chunks the helper copied
 * </pre>
 * Why no word is reset: the helper writes the helped word only for a chunk it claimed under the current
 * sequence, and the origin waits for the exact value (its sequence, the helper's count); a previous copy's
 * value carries another sequence. jcstress {@code SplitCopyStress} checks that every chunk is copied exactly
 * once and that the origin sees the helper's bytes once it returns.
 * <p>
 * A helper that fails after claiming a chunk aborts the job (the origin would wait for good); an origin whose
 * wait fails (the job aborted, a close from another thread) returns while the helper may still be copying
 * its chunks, so the buffer's bytes are not to be trusted after such a failure.
 */
public final class SplitCopy
{
    /**
     * The least length worth splitting, as a split single-copy message's: below it the bytes stay in one core's
     * second-level cache, which a second core reads and writes more slowly than the first copies alone
     * (docs/windows.md), and the copy is not much longer than the target's wake-up.
     */
    public static final int MIN = 2 * 1024 * 1024;
    static final int CHUNK_MIN = 16 * 1024;
    static final int MAX_CHUNKS = 32;
    private static final int PAGE = 4096;
    private static final long SEQUENCE_MASK = 0xFFFF_FFFFL;

    private SplitCopy()
    {
    }

    /**
     * @return the bytes of each chunk (the last may be shorter): at least {@value #CHUNK_MIN}, and so many that
     *         there are at most {@value #MAX_CHUNKS} (fewer CASes on one line, which both ranks contend for).
     */
    static int chunkBytes(final int length)
    {
        final int share = (int)(((long)length + MAX_CHUNKS - 1) / MAX_CHUNKS);
        return Math.max(CHUNK_MIN, (share + PAGE - 1) & -PAGE); // whole pages long (not page-aligned: offsets are the user's)
    }

    static int chunks(final int length, final int chunkBytes)
    {
        return (int)(((long)length + chunkBytes - 1) / chunkBytes);
    }

    /**
     * The origin's first step: a new copy on the buffer whose header is {@code header}, none of its chunks
     * claimed. The caller then asks the helper (whose message carries the sequence).
     *
     * @return the copy's sequence.
     */
    static long open(final AtomicBuffer header)
    {
        final long sequence = ((header.getLongVolatile(HELP_CLAIM_OFFSET) >>> 32) + 1) & SEQUENCE_MASK;
        // NOTE: release; the message that asks for help is published after it, so a helper that reads the
        // message reads this sequence or a later one
        header.putLongRelease(HELP_CLAIM_OFFSET, sequence << 32);
        return sequence;
    }

    /**
     * @return the next unclaimed chunk of copy {@code sequence}, now claimed by the caller; -1 if every chunk
     *         is claimed or the buffer's copy is another one.
     */
    static int claim(final AtomicBuffer header, final long sequence, final int chunks)
    {
        while (true)
        {
            final long word = header.getLongVolatile(HELP_CLAIM_OFFSET);
            final int next = (int)word;
            if (word >>> 32 != sequence || next >= chunks)
            {
                return -1;
            }
            // NOTE: a CAS (a full fence): exactly one rank gets each chunk
            if (header.compareAndSetLong(HELP_CLAIM_OFFSET, word, word + 1))
            {
                return next;
            }
        }
    }

    /**
     * The origin's part: claims and copies chunks of copy {@code sequence} (of {@code length} bytes from
     * {@code from} at {@code fromBase} into {@code to} at {@code toBase}, in chunks of {@code chunkBytes})
     * until none is left.
     *
     * @return the chunks the origin copied; the helper took the others.
     */
    static int copyOwn(
        final AtomicBuffer header, final long sequence, final MutableDirectBuffer to, final int toBase,
        final DirectBuffer from, final int fromBase, final int length, final int chunkBytes)
    {
        return copyClaimed(header, sequence, to, toBase, from, fromBase, length, chunkBytes, false);
    }

    /**
     * @return true once the helper has copied every chunk it took of copy {@code sequence}: all but the
     *         origin's {@code own} of {@code chunks}. Acquire: the helper's bytes are then visible to the caller.
     */
    static boolean helped(final AtomicBuffer header, final long sequence, final int chunks, final int own)
    {
        final int helperChunks = chunks - own;
        return helperChunks == 0 || header.getLongVolatile(HELP_DONE_OFFSET) == (sequence << 32 | helperChunks);
    }

    /**
     * The helper's part, on the origin's message: as {@link #copyOwn}, on the buffer whose header is
     * {@code originHeader}, saying after each chunk how many it has copied.
     *
     * @return the chunks the helper copied.
     */
    static int help(
        final AtomicBuffer originHeader, final long sequence, final MutableDirectBuffer to, final int toBase,
        final DirectBuffer from, final int fromBase, final int length, final int chunkBytes)
    {
        return copyClaimed(originHeader, sequence, to, toBase, from, fromBase, length, chunkBytes, true);
    }

    private static int copyClaimed(
        final AtomicBuffer header, final long sequence, final MutableDirectBuffer to, final int toBase,
        final DirectBuffer from, final int fromBase, final int length, final int chunkBytes, final boolean helper)
    {
        final int chunks = chunks(length, chunkBytes);
        int copied = 0;
        for (int chunk; (chunk = claim(header, sequence, chunks)) >= 0; )
        {
            final int start = chunk * chunkBytes;
            to.putBytes(toBase + start, from, fromBase + start, Math.min(chunkBytes, length - start));
            copied++;
            if (helper)
            {
                // NOTE: release: the chunk's bytes before the count that the origin acquires
                header.putLongRelease(HELP_DONE_OFFSET, sequence << 32 | copied);
            }
        }
        return copied;
    }
}
