package io.sm4j.segment;

import io.sm4j.layout.LayoutParams;
import io.sm4j.layout.SegmentHeaderDescriptor;
import io.sm4j.layout.SegmentLayout;
import org.agrona.concurrent.AtomicBuffer;

import java.nio.charset.StandardCharsets;

import static io.sm4j.layout.SegmentHeaderDescriptor.*;

/**
 * Typed access to the segment header ({@link SegmentHeaderDescriptor}). Everything read here is
 * untrusted until {@link #validate} has passed.
 */
final class SegmentHeader
{
    /** Transient state while one rank writes the abort reason; readers wait for ABORTED. */
    static final int STATE_ABORTING = 3;
    /** Ends a reason cut to fit the header. */
    private static final String CUT_MARK = " ... (cut: the rank's own output has it whole)";

    private final AtomicBuffer buffer;

    SegmentHeader(final AtomicBuffer buffer)
    {
        this.buffer = buffer;
    }

    /**
     * Fills every field but the state, which stays CREATING until {@link #publishReady()}.
     */
    void format(final SegmentLayout layout, final long jobId, final int owner)
    {
        buffer.putLong(MAGIC_OFFSET, MAGIC);
        buffer.putInt(VERSION_OFFSET, VERSION);
        buffer.putInt(STATE_OFFSET, STATE_CREATING);
        final int[] words = encodeParams(layout.params());
        for (int i = 0; i < words.length; i++)
        {
            buffer.putInt(PARAMS_OFFSET + i * Integer.BYTES, words[i]);
        }
        buffer.putLong(TOTAL_LENGTH_OFFSET, layout.totalBytes());
        buffer.putLong(CHECKSUM_OFFSET, layout.checksum());
        final ProcessIdentity creator = ProcessIdentity.current();
        buffer.putLong(CREATOR_PID_OFFSET, creator.pid());
        buffer.putLong(CREATOR_START_OFFSET, creator.startTicks());
        buffer.putLong(JOB_ID_OFFSET, jobId);
        buffer.putInt(OWNER_OFFSET, owner);
        buffer.putInt(ABORT_RANK_OFFSET, 0);
        buffer.putInt(DETACHED_COUNT_OFFSET, 0);
    }

    void publishReady()
    {
        // NOTE: release store last: pairs with attachers' acquire in state(); everything formatted before,
        // header, descriptors and wrappers, is visible to a rank that reads READY.
        buffer.putIntRelease(STATE_OFFSET, STATE_READY);
    }

    int state()
    {
        return buffer.getIntAcquire(STATE_OFFSET);
    }

    boolean isReady()
    {
        return state() == STATE_READY;
    }

    /**
     * Checks the magic, which tells an sm4j segment from a foreign file at any time: a creator writes either
     * nothing (0) or {@link SegmentHeaderDescriptor#MAGIC} there, in one aligned 8-byte store.
     *
     * @return false while the magic is still 0 (the creator is allocating the file).
     * @throws Sm4jException if the file is not an sm4j segment.
     */
    boolean hasMagic(final String path)
    {
        final long magic = buffer.getLong(MAGIC_OFFSET);
        if (magic != 0 && magic != MAGIC)
        {
            throw new Sm4jException("not an sm4j segment: " + path + " (magic=0x" + Long.toHexString(magic) + ")");
        }
        return magic == MAGIC;
    }

    /**
     * Validates version, parameters, length and checksum against this build's layout. Call only after
     * {@link #state()} has returned a state past CREATING: that acquire is what makes the creator's plain
     * stores of these fields visible (a version read before it could still be 0).
     *
     * @param fileLength the file's actual length.
     * @return the layout the header describes.
     */
    SegmentLayout validate(final long fileLength, final String path)
    {
        final int version = buffer.getInt(VERSION_OFFSET);
        if (version != VERSION)
        {
            throw new Sm4jException("segment version not compatible: app=" + VERSION + " file=" + version + " (" + path + ")");
        }
        final int[] words = new int[PARAMS_COUNT];
        for (int i = 0; i < words.length; i++)
        {
            words[i] = buffer.getInt(PARAMS_OFFSET + i * Integer.BYTES);
        }
        final SegmentLayout layout;
        try
        {
            layout = SegmentLayout.compute(decodeParams(words));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new Sm4jException("segment header holds invalid parameters: " + ex.getMessage() + " (" + path + ")");
        }
        final long recorded = buffer.getLong(TOTAL_LENGTH_OFFSET);
        if (recorded != layout.totalBytes() || fileLength != layout.totalBytes())
        {
            throw new Sm4jException("segment length mismatch: layout=" + layout.totalBytes() + " header=" + recorded +
                " file=" + fileLength + " (" + path + ")");
        }
        if (buffer.getLong(CHECKSUM_OFFSET) != layout.checksum())
        {
            throw new Sm4jException("segment layout checksum mismatch: the file was created by an incompatible sm4j build (" +
                path + ")");
        }
        return layout;
    }

    long jobId()
    {
        return buffer.getLong(JOB_ID_OFFSET);
    }

    /**
     * @return the process that created the segment.
     */
    ProcessIdentity creator()
    {
        return new ProcessIdentity(buffer.getLong(CREATOR_PID_OFFSET), buffer.getLong(CREATOR_START_OFFSET));
    }

    /**
     * @return {@link SegmentHeaderDescriptor#OWNER_CREATOR} or {@link SegmentHeaderDescriptor#OWNER_RANKS}.
     */
    int owner()
    {
        return buffer.getInt(OWNER_OFFSET);
    }

    /**
     * As {@link #abort(int, String, int)} with no exit code.
     */
    void abort(final int rank, final String reason)
    {
        abort(rank, reason, 0);
    }

    /**
     * Marks the job ABORTED unless it already is; the first aborter's reason wins.
     *
     * @param rank     the failing rank, -1 for the launcher.
     * @param reason   why; truncated to the header's room.
     * @param exitCode what the job's launcher exits with ({@code abort(code, reason)}), 0 if none was given.
     */
    void abort(final int rank, final String reason, final int exitCode)
    {
        int state;
        do
        {
            state = state();
            if (state == STATE_ABORTED || state == STATE_ABORTING)
            {
                return;
            }
        }
        while (!buffer.compareAndSetInt(STATE_OFFSET, state, STATE_ABORTING));
        final byte[] bytes = fitted(reason);
        final int length = bytes.length;
        buffer.putBytes(ABORT_REASON_OFFSET, bytes, 0, length);
        buffer.putInt(ABORT_REASON_LENGTH_OFFSET, length);
        buffer.putInt(ABORT_RANK_OFFSET, rank);
        buffer.putInt(ABORT_CODE_OFFSET, exitCode);
        // NOTE: release: the reason, rank and code above are visible to whoever acquires ABORTED.
        buffer.putIntRelease(STATE_OFFSET, STATE_ABORTED);
    }

    /**
     * @return {@code reason} in UTF-8, cut at a character boundary with a closing mark if it is longer than
     *         {@link SegmentHeaderDescriptor#ABORT_REASON_MAX_LENGTH} (the rank's own output has it whole).
     */
    static byte[] fitted(final String reason)
    {
        final byte[] bytes = reason.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= ABORT_REASON_MAX_LENGTH)
        {
            return bytes;
        }
        final byte[] mark = CUT_MARK.getBytes(StandardCharsets.UTF_8);
        int end = ABORT_REASON_MAX_LENGTH - mark.length;
        while ((bytes[end] & 0xC0) == 0x80)
        {
            end--; // not inside a character
        }
        final byte[] fitted = java.util.Arrays.copyOf(bytes, end + mark.length);
        System.arraycopy(mark, 0, fitted, end, mark.length);
        return fitted;
    }

    /**
     * @return the abort as an exception, or null while the job is not aborted.
     * @throws Sm4jException if the state is none that sm4j writes.
     */
    JobAbortedException abortCause()
    {
        return abortCause(1_000_000_000L);
    }

    /**
     * @param waitNanos how long to wait for an abort being written (ABORTING) to be ABORTED: 0 for a copy of a
     *                  header, which never changes (its reader re-reads the file instead: {@code SegmentCopy}).
     */
    JobAbortedException abortCause(final long waitNanos)
    {
        final long deadline = System.nanoTime() + waitNanos;
        int state = state();
        while (state == STATE_ABORTING && System.nanoTime() < deadline)
        {
            Thread.onSpinWait();
            state = state();
        }
        if (state == STATE_ABORTING)
        {
            return new JobAbortedException(-1, "(the aborting process died while writing its reason)");
        }
        if (state == STATE_READY || state == STATE_CREATING)
        {
            return null;
        }
        if (state != STATE_ABORTED)
        {
            throw new Sm4jException("the segment header holds job state " + state + ", which no sm4j process writes " +
                "(the segment was overwritten)");
        }
        final int length = Math.max(0, Math.min(buffer.getInt(ABORT_REASON_LENGTH_OFFSET), ABORT_REASON_MAX_LENGTH));
        final byte[] bytes = new byte[length];
        buffer.getBytes(ABORT_REASON_OFFSET, bytes);
        final int rank = buffer.getInt(ABORT_RANK_OFFSET);
        final String reason = printable(new String(bytes, StandardCharsets.UTF_8));
        return new JobAbortedException(rank >= -1 && rank < LayoutParams.MAX_PEERS ? rank : -1,
            reason.isEmpty() ? "(no readable reason)" : reason, buffer.getInt(ABORT_CODE_OFFSET));
    }

    /**
     * @return {@code text} with control characters (a forged or torn reason: NUL bytes, escapes) shown as '?'.
     */
    private static String printable(final String text)
    {
        final StringBuilder out = new StringBuilder(text.length());
        text.codePoints().forEach(c -> out.appendCodePoint(Character.isISOControl(c) ? '?' : c));
        return out.toString().strip();
    }

    /**
     * @return the number of ranks detached so far, this one included.
     */
    int incrementDetached()
    {
        return buffer.getAndAddInt(DETACHED_COUNT_OFFSET, 1) + 1;
    }
}
