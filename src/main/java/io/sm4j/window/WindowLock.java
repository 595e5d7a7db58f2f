package io.sm4j.window;

import org.agrona.concurrent.AtomicBuffer;

import static io.sm4j.layout.WindowChunkDescriptor.LOCK_COUNTER_OFFSET;
import static io.sm4j.layout.WindowChunkDescriptor.LOCK_READ_OFFSET;
import static io.sm4j.layout.WindowChunkDescriptor.LOCK_WRITE_OFFSET;

/**
 * The reader-writer ticket lock of one window part, in its file's header (Open MPI osc/sm's
 * {counter, write, read}; {@link io.sm4j.layout.WindowChunkDescriptor}). Nothing here waits: a locker takes a
 * ticket, then waits (in its progress engine) until {@link #exclusiveGranted} or {@link #sharedGranted}.
 * <p>
 * Implementation notes. Tickets are handed out in order by a fetch-and-add of the counter. write counts the
 * tickets whose holders have left; read counts the tickets admitted to read: a shared holder admits the next
 * ticket as soon as it enters, an exclusive one only as it leaves. So an exclusive ticket t enters once every
 * earlier ticket has left (write == t), and a shared ticket t once every earlier exclusive one has left and
 * every earlier shared one has entered (read == t). Every update is an atomic add (a full fence, so what the
 * holder wrote in the window is published by its unlock), and the granted checks are acquire loads: what an
 * earlier holder wrote is visible to the next one. Proven in jcstress (WindowLockStress).
 */
public final class WindowLock
{
    private WindowLock()
    {
    }

    /**
     * @return this locker's ticket.
     */
    public static long takeTicket(final AtomicBuffer header)
    {
        return header.getAndAddLong(LOCK_COUNTER_OFFSET, 1);
    }

    /**
     * @return true once every earlier holder has left (acquire: their writes are visible).
     */
    public static boolean exclusiveGranted(final AtomicBuffer header, final long ticket)
    {
        return header.getLongAcquire(LOCK_WRITE_OFFSET) == ticket;
    }

    /**
     * @return true once every earlier exclusive holder has left (acquire); then call {@link #admitNext}.
     */
    public static boolean sharedGranted(final AtomicBuffer header, final long ticket)
    {
        return header.getLongAcquire(LOCK_READ_OFFSET) == ticket;
    }

    /**
     * A shared holder, once granted: the next ticket may read too.
     *
     * @return true if a later ticket was taken already (its holder may sleep: ring it).
     */
    public static boolean admitNext(final AtomicBuffer header, final long ticket)
    {
        header.getAndAddLong(LOCK_READ_OFFSET, 1);
        return header.getLongVolatile(LOCK_COUNTER_OFFSET) > ticket + 1;
    }

    public static void unlockExclusive(final AtomicBuffer header)
    {
        // NOTE: the holder's writes are done before either add (a full fence each) publishes them; osc/sm's order
        header.getAndAddLong(LOCK_WRITE_OFFSET, 1);
        header.getAndAddLong(LOCK_READ_OFFSET, 1);
    }

    public static void unlockShared(final AtomicBuffer header)
    {
        header.getAndAddLong(LOCK_WRITE_OFFSET, 1);
    }
}
