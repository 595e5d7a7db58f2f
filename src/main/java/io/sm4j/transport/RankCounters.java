package io.sm4j.transport;

import io.sm4j.layout.CountersDescriptor;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;

import static io.sm4j.layout.CountersDescriptor.BOX_SENDS;
import static io.sm4j.layout.CountersDescriptor.BYTES_RECEIVED;
import static io.sm4j.layout.CountersDescriptor.BYTES_SENT;
import static io.sm4j.layout.CountersDescriptor.FIFO_SENDS;
import static io.sm4j.layout.CountersDescriptor.MESSAGES_RECEIVED;
import static io.sm4j.layout.CountersDescriptor.MESSAGES_SENT;
import static io.sm4j.layout.CountersDescriptor.ROOM_WAIT_NANOS;
import static io.sm4j.layout.CountersDescriptor.UNEXPECTED_BYTES;
import static io.sm4j.layout.CountersDescriptor.UNEXPECTED_LIMIT;

/**
 * This rank's counters in the segment ({@link CountersDescriptor}), for {@code sm4j stat} to read from
 * outside. Only this rank writes them.
 * <p>
 * Implementation notes: each update is a plain load and an ordered (release) store of the rank's own line:
 * on x86 two ordinary moves, no fence, no locked instruction. One writer needs no atomic increment; the
 * release keeps a reader from seeing a count before what it counts, and an aligned 64-bit store is never
 * torn. The updates address the mapping directly ({@link UnsafeApi}, the region's address checked once here):
 * through the buffer's bounds-checked accessors the five updates of a message cost about 5 % of the 64-byte
 * windowed rate (docs/benchmarks.md). In MULTIPLE thread mode two threads may update one counter at once and
 * lose an increment: these are statistics, not protocol state, and a lock per message would cost more than
 * they are worth.
 */
public final class RankCounters
{
    private final AtomicBuffer counters;
    /** Address of the region in the mapping. */
    private final long address;

    RankCounters(final AtomicBuffer counters)
    {
        counters.boundsCheck(0, CountersDescriptor.LENGTH); // once: updates address the region directly
        if (counters.byteArray() != null)
        {
            throw new IllegalArgumentException("counters must be off the heap: " + counters);
        }
        this.counters = counters;
        this.address = counters.addressOffset();
    }

    /**
     * A message (not a control message) left: its first fragment was published.
     */
    public void messageSent(final long bytes)
    {
        add(MESSAGES_SENT, 1);
        add(BYTES_SENT, bytes);
    }

    /**
     * A message was matched to a receive.
     */
    public void messageReceived(final long bytes)
    {
        add(MESSAGES_RECEIVED, 1);
        add(BYTES_RECEIVED, bytes);
    }

    /**
     * A send waited this long for an eager credit, a max-size fragment or fast box room.
     */
    public void roomWait(final long nanos)
    {
        add(ROOM_WAIT_NANOS, nanos);
    }

    /**
     * The unexpected messages kept now, against the budget.
     */
    public void unexpected(final long bytes, final long limit)
    {
        counters.putLongOrdered(CountersDescriptor.offset(UNEXPECTED_BYTES), bytes);
        counters.putLongOrdered(CountersDescriptor.offset(UNEXPECTED_LIMIT), limit);
    }

    /**
     * Marks whether this rank's thread waits inside sm4j (SINGLE mode), for a launcher that watches for frozen
     * ranks ({@link CountersDescriptor#WAITING}).
     */
    void waiting(final boolean waiting)
    {
        counters.putLongOrdered(CountersDescriptor.offset(CountersDescriptor.WAITING), waiting ? 1 : 0);
    }

    void fragmentSent(final boolean inline)
    {
        add(inline ? BOX_SENDS : FIFO_SENDS, 1);
    }

    private void add(final int counter, final long delta)
    {
        final long at = address + CountersDescriptor.offset(counter);
        UnsafeApi.putLongRelease(null, at, UnsafeApi.getLong(null, at) + delta); // NOTE: one writer: see the class notes
    }
}
