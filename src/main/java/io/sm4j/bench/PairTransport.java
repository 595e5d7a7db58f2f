package io.sm4j.bench;

import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * One side of a two-rank exchange over some transport: the operations OSU's loops need. Every call moves
 * whole messages of {@code length} bytes between this rank's send or receive buffer and the peer.
 */
interface PairTransport extends AutoCloseable
{
    /** Largest message any loop sends. */
    int MAX_MESSAGE = 4 << 20;

    /**
     * @return a send or receive buffer of {@link #MAX_MESSAGE} bytes outside the heap, cacheline-aligned, as
     *         osu_mpi.c's malloc'ed buffers: a 4 MiB array on the heap is copied by every young collection
     *         (2-10 ms on this machine), which turned the allocating isend windows' rates into GC pauses.
     */
    static UnsafeBuffer messageBuffer()
    {
        return new UnsafeBuffer(BufferUtil.allocateDirectAligned(MAX_MESSAGE, BitUtil.CACHE_LINE_LENGTH));
    }

    /**
     * @return the name in tables, CSV and charts.
     */
    String name();

    /**
     * @return a message size on each code path a larger message takes, which the warm-up runs until C2 has
     *         compiled each (sm4j: its largest eager message, its smallest rendezvous one, a large one), or null
     *         for a transport that copies every size alike (a ring, a socket).
     */
    default int[] pathSizes()
    {
        return null;
    }

    /**
     * Blocking send: returns when the send buffer may be reused.
     */
    void send(int length);

    /**
     * Blocking receive of one message of {@code length} bytes.
     */
    void receive(int length);

    /**
     * OSU's window of sends: {@code window} nonblocking sends, then wait for all. A transport without
     * requests sends them one after another.
     */
    default void sendWindow(final int length, final int window)
    {
        for (int i = 0; i < window; i++)
        {
            send(length);
        }
    }

    /**
     * The receiving side of {@link #sendWindow}: {@code window} receives posted, then waited for; without
     * requests, one after another.
     */
    default void receiveWindow(final int length, final int window)
    {
        for (int i = 0; i < window; i++)
        {
            receive(length);
        }
    }

    @Override
    void close();
}
