package io.sm4j.transport;

import io.sm4j.layout.DoorbellDescriptor;
import io.sm4j.segment.Segment;
import io.sm4j.segment.SegmentFiles;
import org.agrona.CloseHelper;
import org.agrona.concurrent.AtomicBuffer;

import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;

/**
 * The peers' doorbells as a publisher sees them: after this rank publishes something a peer may be
 * waiting for (a message, a credit, a fragment back, room in a FIFO or a fast box), it checks the peer's
 * doorbell word ({@link Publication#ringIfArmed}) and, if the peer sleeps armed, takes the ring (armed to RUNG,
 * so one publisher rings) and wakes it here as the armed value says ({@link Doorbell}): a futex wake on the
 * word, or one byte to the peer's socket. Connections are made on the first ring. Also what each rank has
 * declared in its word (futexes, reads of its peers' processes).
 * <p>
 * Implementation notes: a publisher does not fence between its store and its read of the word. A full
 * fence there waits for the store's cacheline to come back from the reader, once per message: it halved
 * the small-message rate (docs/benchmarks.md). The read may therefore pass the store and miss a rank that
 * arms at that instant; the rank's second look after a nap ({@link WaitPolicy}) finds the message instead.
 */
final class PeerBells implements AutoCloseable
{
    private final int rank;
    private final AtomicBuffer[] words;
    private final Path[] paths;
    private final SocketChannel[] channels;
    /** Null if this rank cannot ring a futex: it said so, and no peer then arms for one. */
    private final Futex futex;
    /** Every rank has said it can use futexes: decided once every rank has attached ({@link #decideFutex}). */
    private volatile boolean everyRankCanFutex;
    private final ByteBuffer ringByte = ByteBuffer.allocateDirect(1);
    private final boolean yieldAfterRing;
    /** System.nanoTime() of this rank's last ring: the woken peer may be queued on this rank's core. */
    private volatile long lastRing;

    /**
     * @param futex          this rank's futex caller, or null if it has none.
     * @param yieldAfterRing yield the processor after a socket ring ({@link #ring}): false in MULTIPLE mode,
     *                       where a ring may be made under a lock (a peer's publication, the poll) that the
     *                       rank's other threads then wait on; their waits' own yield after a ring serves
     *                       ({@link WaitPolicy}).
     */
    PeerBells(final Segment segment, final int rank, final Futex futex, final boolean yieldAfterRing)
    {
        this.futex = futex;
        this.yieldAfterRing = yieldAfterRing;
        final int size = segment.layout().params().peers();
        this.rank = rank;
        words = new AtomicBuffer[size];
        paths = new Path[size];
        channels = new SocketChannel[size];
        for (int peer = 0; peer < size; peer++)
        {
            words[peer] = segment.views().bell(peer);
            paths[peer] = SegmentFiles.bellPath(segment.path(), peer);
        }
    }

    /**
     * Rings every armed peer: the job's state changed (this rank detached, or the job was aborted), which
     * every waiting rank must see now rather than at its next timeout.
     */
    void ringAll()
    {
        BellWord.fence(); // NOTE: the state change before the reads: a rank arming now must see it at its first look
        for (int peer = 0; peer < words.length; peer++)
        {
            final long armed = peer == rank ? DoorbellDescriptor.AWAKE : BellWord.takeRing(words[peer]);
            if (armed != DoorbellDescriptor.AWAKE)
            {
                wake(peer, armed);
            }
        }
    }

    /**
     * Wakes {@code peer}, whose ring the caller has just taken ({@link BellWord#takeRing}).
     *
     * @param armed what the peer was armed for: {@link DoorbellDescriptor#ARMED} or
     *              {@link DoorbellDescriptor#ARMED_FUTEX}.
     */
    void wake(final int peer, final long armed)
    {
        if (armed == DoorbellDescriptor.ARMED_FUTEX && futex != null)
        {
            lastRing = System.nanoTime();
            futex.wake(words[peer].addressOffset());
        }
        else
        {
            ring(peer); // ARMED_FUTEX without a futex cannot be: this rank said it has none, so nobody arms for one
        }
    }

    /**
     * Reads once whether every rank can ring a futex: once all have attached (each says it before it registers).
     */
    void decideFutex()
    {
        boolean all = true;
        for (int peer = 0; peer < words.length && all; peer++)
        {
            all = BellWord.canFutex(words[peer]);
        }
        everyRankCanFutex = all;
    }

    /**
     * @return true if {@code peer} has said it reads its peers' processes (once it has attached).
     */
    boolean reads(final int peer)
    {
        return BellWord.reads(words[peer]);
    }

    /**
     * @return where {@code peer}'s address word lies in its own process (once it has attached): read out of that
     *         process, it holds this value.
     */
    long addressWord(final int peer)
    {
        return BellWord.address(words[peer]);
    }

    /**
     * Says whether this rank could read every peer that reads, out of its process.
     */
    void declareChecked(final boolean readable)
    {
        BellWord.declareChecked(words[rank], readable);
    }

    /**
     * @return true if {@code peer} reads its peers' processes and has checked that it can read every one that
     *         reads; false if not, or not yet.
     */
    boolean readsEveryone(final int peer)
    {
        return BellWord.readsEveryone(words[peer]);
    }

    /**
     * @return true if every rank of the job has said it can sleep on and ring futexes: only then may this
     *         rank sleep on one (a rank that cannot would never wake it); false until {@link #decideFutex}.
     */
    boolean everyRankCanFutex()
    {
        return everyRankCanFutex;
    }

    /**
     * Writes one byte to {@code peer}'s socket, then yields the processor (not in MULTIPLE mode: see the
     * constructor). A peer without one never arms; one that has closed it is leaving: a failed ring is dropped,
     * and the sleeper's timeout bounds the cost of any ring lost.
     * <p>
     * Linux wakes a reader of a socket as if its writer were about to sleep (a synchronous wake-up): it queues
     * the woken rank on this rank's core where the kernel sees no cache shared with the other cores (this
     * VM's), and an idle core does not take it. This rank rarely sleeps next, so the woken rank waited until
     * this one yielded or used up its slice: it ran 16-22 us after the ring (median; 9-12 us with the yield),
     * and milliseconds in the tail (docs/benchmarks.md, "Seventeenth session"). The yield hands it the core at
     * once. A futex wake is not synchronous: the woken rank goes to an idle core, so {@link #wake} does not
     * yield after one.
     */
    private void ring(final int peer)
    {
        lastRing = System.nanoTime();
        if (writeRing(peer) && yieldAfterRing)
        {
            Thread.yield(); // after the channels' monitor is released; only if a byte went out (a peer was woken)
        }
    }

    /**
     * @return true if the byte was written.
     */
    private boolean writeRing(final int peer)
    {
        // NOTE: an interrupted publisher rings all the same: with its interrupt status set, the write would close
        // the channel (ClosedByInterruptException) and the ring would be lost (Doorbell#select)
        final boolean interrupted = Thread.interrupted();
        synchronized (channels)
        {
            try
            {
                SocketChannel channel = channels[peer];
                if (channel == null)
                {
                    // a blocking connect: to a listening Unix socket it completes at once (the kernel queues it)
                    channel = SocketChannel.open(UnixDomainSocketAddress.of(paths[peer]));
                    channel.configureBlocking(false); // a full socket buffer already holds a ring: never wait
                    channels[peer] = channel;
                }
                ringByte.clear();
                return channel.write(ringByte) > 0; // 0 written: the socket is full of rings the peer has yet to read
            }
            catch (final IOException | RuntimeException ex)
            {
                drop(peer);
                return false;
            }
            finally
            {
                if (interrupted)
                {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /**
     * @return System.nanoTime() of this rank's last ring (0 if none).
     */
    long lastRing()
    {
        return lastRing;
    }

    private void drop(final int peer)
    {
        CloseHelper.quietClose(channels[peer]); // the next ring connects again
        channels[peer] = null;
    }

    @Override
    public void close()
    {
        synchronized (channels)
        {
            for (int peer = 0; peer < channels.length; peer++)
            {
                drop(peer);
            }
        }
    }
}
