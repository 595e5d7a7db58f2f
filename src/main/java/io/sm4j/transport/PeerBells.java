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
 * doorbell word and, if the peer sleeps armed, takes the ring (armed to RUNG, so one publisher rings) and
 * wakes it as the armed value says ({@link Doorbell}): a futex wake on the word, or one byte to the peer's
 * socket. Connections are made on the first ring.
 * <p>
 * A poll publishes back to several senders: it {@link #touch}es each and {@link #ringTouched rings} them at
 * the end of the pass. Touching is for the thread that holds the poll lock only; every other publisher
 * calls {@link #afterPublish}.
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
    /** System.nanoTime() of this rank's last ring: the woken peer may be queued on this rank's core. */
    private volatile long lastRing;
    private final boolean[] touched;
    private final int[] touchedList;
    private int touchedCount;

    /**
     * @param futex this rank's futex caller, or null if it has none.
     */
    PeerBells(final Segment segment, final int rank, final Futex futex)
    {
        this.futex = futex;
        final int size = segment.layout().params().peers();
        this.rank = rank;
        words = new AtomicBuffer[size];
        paths = new Path[size];
        channels = new SocketChannel[size];
        touched = new boolean[size];
        touchedList = new int[size];
        for (int peer = 0; peer < size; peer++)
        {
            words[peer] = segment.views().bell(peer);
            paths[peer] = SegmentFiles.bellPath(segment.path(), peer);
        }
    }

    /**
     * Rings {@code peer} if it sleeps armed: for a publisher whose store to {@code peer}'s memory has just
     * been made (a release store).
     */
    void afterPublish(final int peer)
    {
        // NOTE: no fence: the read may pass the publish above; the sleeper's second look covers that (BellWord)
        ringIfArmed(peer);
    }

    /**
     * Notes that this pass published something to {@code peer}; {@link #ringTouched} rings it.
     */
    void touch(final int peer)
    {
        if (!touched[peer])
        {
            touched[peer] = true;
            touchedList[touchedCount++] = peer;
        }
    }

    /**
     * {@link #afterPublish} for every peer {@link #touch}ed since the last call.
     */
    void ringTouched()
    {
        for (int i = 0; i < touchedCount; i++)
        {
            final int peer = touchedList[i];
            touched[peer] = false;
            ringIfArmed(peer);
        }
        touchedCount = 0;
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
            if (peer != rank)
            {
                ringIfArmed(peer);
            }
        }
    }

    private void ringIfArmed(final int peer)
    {
        final long armed = BellWord.takeRing(words[peer]);
        if (armed == DoorbellDescriptor.ARMED_FUTEX && futex != null)
        {
            lastRing = System.nanoTime();
            futex.wake(words[peer].addressOffset());
        }
        else if (armed != DoorbellDescriptor.AWAKE)
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
     * Writes one byte to {@code peer}'s socket. A peer without one never arms; one that has closed it is
     * leaving: a failed ring is dropped, and the sleeper's timeout bounds the cost of any ring lost.
     */
    private void ring(final int peer)
    {
        lastRing = System.nanoTime();
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
                channel.write(ringByte); // 0 written: the socket is full of rings the peer has yet to read
            }
            catch (final IOException | RuntimeException ex)
            {
                drop(peer);
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
