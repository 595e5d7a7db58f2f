package io.sm4j.job;

import io.sm4j.layout.CountersDescriptor;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;

import static io.sm4j.layout.CountersDescriptor.BOX_SENDS_OFFSET;
import static io.sm4j.layout.CountersDescriptor.BYTES_RECEIVED_OFFSET;
import static io.sm4j.layout.CountersDescriptor.BYTES_SENT_OFFSET;
import static io.sm4j.layout.CountersDescriptor.FIFO_SENDS_OFFSET;
import static io.sm4j.layout.CountersDescriptor.MESSAGES_RECEIVED_OFFSET;
import static io.sm4j.layout.CountersDescriptor.MESSAGES_SENT_OFFSET;
import static io.sm4j.layout.CountersDescriptor.ROOM_WAIT_NANOS_OFFSET;
import static io.sm4j.layout.CountersDescriptor.UNEXPECTED_BYTES_OFFSET;
import static io.sm4j.layout.CountersDescriptor.UNEXPECTED_LIMIT_OFFSET;
import static io.sm4j.layout.CountersDescriptor.WAITING_OFFSET;

/**
 * This rank's counters ({@link CountersDescriptor}), for {@code sm4j stat} to read from outside. Only this
 * rank writes them.
 * <p>
 * Implementation notes: every write to the mapping runs inside the endpoint's {@code CallGate} (a claim's,
 * a poll's, an idle's, or close), where a close from another thread cannot have unmapped it: the
 * per-message counts are made by the sender's claim and by the receiver's poll, and the two that change
 * off those paths (room waits, unexpected bytes) are kept in fields and published on the health check
 * (at most every 100 ms while the rank is inside sm4j). A per-message update is a plain load and a release
 * store of the rank's own line, addressed directly (bounds-checked once here): on x86 two ordinary moves,
 * no fence; one writer needs no atomic increment, the release keeps a reader from seeing a count before
 * what it counts, and an aligned 64-bit store is never torn. Through the buffer's bounds-checked accessors
 * the updates of a message cost about 6 % of the 64-byte windowed rate, this way 1.5-4 %
 * (docs/benchmarks.md). In MULTIPLE thread mode two threads may update one counter at once and lose an
 * increment: these are statistics, not protocol state.
 */
public final class RankCounters
{
    /** Address of the region in the mapping, bounds-checked once. */
    private final long address;
    private long roomWaitNanos;
    private long unexpectedBytes;
    /** The waiting mark as last stored ({@link #waiting}): 0, SPINNING or YIELDING. */
    private long waiting;

    /**
     * @param unexpectedLimit the unexpected-message budget, published at once (it never changes).
     */
    public RankCounters(final AtomicBuffer counters, final long unexpectedLimit)
    {
        counters.boundsCheck(0, CountersDescriptor.LENGTH);
        if (counters.byteArray() != null)
        {
            throw new IllegalArgumentException("counters must be off the heap: " + counters);
        }
        this.address = counters.addressOffset();
        UnsafeApi.putLongRelease(null, address + UNEXPECTED_LIMIT_OFFSET, unexpectedLimit);
    }

    /**
     * A message (not a control message) is being published: for the sender's claim, before its commit.
     */
    public void messageSent(final long bytes)
    {
        add(MESSAGES_SENT_OFFSET, 1);
        add(BYTES_SENT_OFFSET, bytes);
    }

    /**
     * A message (not a control message) arrived from a peer: for the receiver's poll, as it is handed over.
     */
    public void messageReceived(final long bytes)
    {
        add(MESSAGES_RECEIVED_OFFSET, 1);
        add(BYTES_RECEIVED_OFFSET, bytes);
    }

    /**
     * A send waited this long for an eager credit, a max-size fragment or fast box room (published later).
     */
    public void roomWait(final long nanos)
    {
        roomWaitNanos += nanos;
    }

    /**
     * The unexpected messages kept now (published later).
     */
    public void unexpected(final long bytes)
    {
        unexpectedBytes = bytes;
    }

    public void fragmentSent(final boolean inline)
    {
        add(inline ? BOX_SENDS_OFFSET : FIFO_SENDS_OFFSET, 1);
    }

    /**
     * Marks this rank's thread waiting inside sm4j (SINGLE mode; called on every idle pass, stored when it
     * changes), for a launcher that watches for frozen ranks and for {@code sm4j stat}
     * ({@link CountersDescriptor#WAITING}): a waiting rank beats at least every health interval.
     *
     * @param how {@link CountersDescriptor#SPINNING} or {@link CountersDescriptor#YIELDING}.
     */
    public void waiting(final long how)
    {
        if (waiting != how)
        {
            waiting = how;
            UnsafeApi.putLongRelease(null, address + WAITING_OFFSET, how);
        }
    }

    /**
     * The wait has ended (a plain store on the rank's own line, once per wait that idled).
     */
    public void doneWaiting()
    {
        if (waiting != 0)
        {
            waiting = 0;
            UnsafeApi.putLongRelease(null, address + WAITING_OFFSET, 0);
        }
    }

    /**
     * Publishes the counts kept in fields: on the health check, and at close.
     */
    public void publish()
    {
        UnsafeApi.putLongRelease(null, address + ROOM_WAIT_NANOS_OFFSET, roomWaitNanos);
        UnsafeApi.putLongRelease(null, address + UNEXPECTED_BYTES_OFFSET, unexpectedBytes);
    }

    private void add(final int offset, final long delta)
    {
        final long at = address + offset;
        UnsafeApi.putLongRelease(null, at, UnsafeApi.getLong(null, at) + delta); // NOTE: one writer: see the class notes
    }
}
