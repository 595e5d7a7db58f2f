package io.sm4j.bench;

import io.sm4j.message.Communicator;
import io.sm4j.message.Request;
import io.sm4j.transport.PeerMemory;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The exchange through sm4j's public message API: tagged {@code send}/{@code recv}, and for windows either
 * persistent requests ({@code sendInit}/{@code recvInit} once per size, then {@code start}), as an
 * allocation-free application writes them, or a new {@code isend}/{@code irecv} request per message, as
 * osu_bw does; both completed with {@code await}.
 */
final class Sm4jPair implements PairTransport
{
    private static final int TAG = 1;

    /** The large message the warm-up runs ({@link #pathSizes}). */
    private static final int LARGE_PATH = 64 << 10;
    private final Communicator communicator;
    private final int peer;
    private final UnsafeBuffer out;
    private final UnsafeBuffer in;
    private final boolean persistent;
    private final Request[] window = new Request[BenchRank.MAX_WINDOW];
    private final Request[] sends = new Request[BenchRank.MAX_WINDOW];
    /**
     * Persistent requests by message length, each array as long as the largest window started at it: the
     * warm-up alternates sizes window by window, and requests made again at every change of size (a
     * thousand of each) left 290-300 MB of garbage in each rank of a {@code bench bw -m 1:64 -i 1000} run.
     */
    private final Int2ObjectHashMap<Request[]> persistentRecvs = new Int2ObjectHashMap<>();
    private final Int2ObjectHashMap<Request[]> persistentSends = new Int2ObjectHashMap<>();

    /**
     * @param persistent windows of persistent requests, else of new isend/irecv requests.
     * @param buffers    what to send from and receive into.
     */
    Sm4jPair(final Communicator communicator, final int peer, final boolean persistent, final BufferKind buffers)
    {
        this.out = buffers.allocate(communicator, MAX_MESSAGE);
        this.in = buffers.allocate(communicator, MAX_MESSAGE);
        this.communicator = communicator;
        this.peer = peer;
        this.persistent = persistent;
    }

    /**
     * From this job's own limits, not the defaults': the eager limit moves with {@code --eager-limit}.
     */
    @Override
    public int[] pathSizes()
    {
        final int eager = communicator.eagerPayload();
        // a large message: read out of the sender's process from direct buffers, else pipelined
        return new int[] { eager, eager + 1, Math.max(LARGE_PATH, PeerMemory.MIN_BYTES) };
    }

    @Override
    public String name()
    {
        return "sm4j";
    }

    @Override
    public void send(final int length)
    {
        communicator.send(peer, TAG, out, 0, length);
    }

    @Override
    public void receive(final int length)
    {
        communicator.recv(peer, TAG, in, 0, length);
    }

    /**
     * @return the buffer {@link #send} sends from.
     */
    UnsafeBuffer out()
    {
        return out;
    }

    /**
     * @return the buffer {@link #receive} receives into.
     */
    UnsafeBuffer in()
    {
        return in;
    }

    @Override
    public void sendWindow(final int length, final int count)
    {
        startSends(length, count, window);
        awaitAll(window, count);
    }

    @Override
    public void receiveWindow(final int length, final int count)
    {
        startReceives(length, count);
        awaitAll(window, count);
    }

    /**
     * bibw: both directions at once.
     */
    void exchangeWindow(final int length, final int count)
    {
        startReceives(length, count);
        startSends(length, count, sends);
        awaitAll(window, count);
        awaitAll(sends, count);
    }

    private void startReceives(final int length, final int count)
    {
        final Request[] requests = persistent ? persistentRequests(persistentRecvs, false, length, count) : null;
        for (int i = 0; i < count; i++)
        {
            window[i] = requests != null ? requests[i].start() : communicator.irecv(peer, TAG, in, 0, length);
        }
    }

    private void startSends(final int length, final int count, final Request[] into)
    {
        final Request[] requests = persistent ? persistentRequests(persistentSends, true, length, count) : null;
        for (int i = 0; i < count; i++)
        {
            into[i] = requests != null ? requests[i].start() : communicator.isend(peer, TAG, out, 0, length);
        }
    }

    /**
     * @return at least {@code count} persistent requests for messages of {@code length}, made at the first
     *         window of that length (a warm-up one) that needs them.
     */
    private Request[] persistentRequests(
        final Int2ObjectHashMap<Request[]> byLength, final boolean send, final int length, final int count)
    {
        final Request[] made = byLength.get(length);
        if (made != null && made.length >= count)
        {
            return made;
        }
        final Request[] requests = new Request[count];
        for (int i = 0; i < count; i++)
        {
            requests[i] = send ? communicator.sendInit(peer, TAG, out, 0, length) : communicator.recvInit(peer, TAG, in, 0, length);
        }
        byLength.put(length, requests);
        return requests;
    }

    private static void awaitAll(final Request[] requests, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            requests[i].await();
            requests[i] = null;
        }
    }

    @Override
    public void close()
    {
        // the communicator belongs to the rank
    }
}
