package io.sm4j.transport;

import io.sm4j.layout.DoorbellDescriptor;
import org.agrona.concurrent.AtomicBuffer;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * This rank's doorbell: its word in shared memory ({@link DoorbellDescriptor}) and the kernel
 * object it sleeps on, a Unix domain socket beside the segment that ringing peers write one byte to (the
 * UCX shared-memory pattern: arm, look again, block; a publisher that finds the rank armed wakes it). JDK 17
 * has no futex; a socket is the cheapest object a peer process can wake a JVM thread through.
 * <p>
 * Implementation notes: arming comes before the caller's last pass over the in-bound paths, and a
 * publisher's store before its read of the word, each with a full fence between ({@link BellWord}).
 * Whichever of the two stores comes first in the total order, the other side's later load sees it, so
 * either the last pass finds the message or the publisher finds the rank armed and rings: no lost wake-up.
 * A ring that arrives after the rank woke by timeout stays in the socket and only makes the next sleep end
 * early.
 * <p>
 * In {@link io.sm4j.layout.ThreadMode#MULTIPLE} mode one thread at a time is the sleeper: it arms, blocks on
 * the socket and, once woken, wakes the other waiting threads, which wait on a process-local monitor
 * ({@link #follow}) instead of arming. Without a socket (the directory does not take one, or its path is too
 * long), {@link #isAvailable()} is false and the rank never arms: it waits by yielding.
 */
final class Doorbell implements AutoCloseable
{
    private final AtomicBuffer word;
    private final Path path;
    private final ServerSocketChannel server;
    private final Selector selector;
    private final ByteBuffer sink = ByteBuffer.allocateDirect(256);
    private final boolean multiple;
    private final AtomicBoolean sleeper = new AtomicBoolean();
    private final Object followers = new Object();
    private long generation;
    /** Sleeps so far, and those that ended by their timeout rather than a ring (racy reads: statistics). */
    private volatile long sleeps;
    private volatile long timedOut;

    private Doorbell(
        final AtomicBuffer word, final Path path, final ServerSocketChannel server, final Selector selector,
        final boolean multiple)
    {
        this.word = word;
        this.path = path;
        this.server = server;
        this.selector = selector;
        this.multiple = multiple;
    }

    /**
     * Binds the socket at {@code path} (replacing a stale file of a dead job) and resets the word.
     *
     * @return the doorbell; {@link #isAvailable()} false if no socket could be bound (the reason is logged).
     */
    static Doorbell open(final AtomicBuffer word, final Path path, final boolean multiple)
    {
        BellWord.disarm(word);
        ServerSocketChannel server = null;
        Selector selector = null;
        try
        {
            Files.deleteIfExists(path);
            server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            server.bind(UnixDomainSocketAddress.of(path));
            server.configureBlocking(false);
            selector = Selector.open();
            server.register(selector, SelectionKey.OP_ACCEPT);
            return new Doorbell(word, path, server, selector, multiple);
        }
        catch (final IOException | RuntimeException ex)
        {
            closeQuietly(server);
            closeQuietly(selector);
            System.getLogger("io.sm4j").log(System.Logger.Level.WARNING, "no doorbell at " + path + " (" + ex +
                "): this rank waits by yielding instead of sleeping");
            return new Doorbell(word, path, null, null, multiple);
        }
    }

    boolean isAvailable()
    {
        return server != null;
    }

    /**
     * Arms the bell before the caller's last look at its in-bound paths. In MULTIPLE mode only one thread
     * arms: the others {@link #follow}.
     *
     * @return false if no socket, or another thread is the sleeper.
     */
    boolean tryArm()
    {
        if (server == null || multiple && !sleeper.compareAndSet(false, true))
        {
            return false;
        }
        BellWord.arm(word);
        return true;
    }

    /**
     * Blocks the armed thread until a peer rings or {@code timeoutNanos} pass, then disarms.
     */
    void sleep(final long timeoutNanos)
    {
        try
        {
            sleeps++; // one sleeper at a time: no lost update
            if (selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNanos))) == 0)
            {
                timedOut++;
            }
            for (final SelectionKey key : selector.selectedKeys())
            {
                drain(key);
            }
            selector.selectedKeys().clear();
        }
        catch (final IOException ex)
        {
            // a broken selector: the caller's loop goes on polling; the timeout bounded this wait
        }
        finally
        {
            disarm();
        }
    }

    /**
     * Ends this thread's turn as the armed sleeper without sleeping (it found work after arming): senders
     * stop ringing, and in MULTIPLE mode the waiting threads look again.
     */
    void disarm()
    {
        BellWord.disarm(word);
        if (multiple)
        {
            sleeper.set(false);
            synchronized (followers)
            {
                generation++;
                followers.notifyAll();
            }
        }
    }

    /**
     * MULTIPLE mode: waits, up to {@code timeoutNanos}, while another thread sleeps armed; returns when that
     * thread wakes (it was rung, or it found work).
     */
    void follow(final long timeoutNanos)
    {
        synchronized (followers)
        {
            final long seen = generation;
            final long deadline = System.nanoTime() + timeoutNanos;
            long left = timeoutNanos;
            while (sleeper.get() && generation == seen && left > 0)
            {
                try
                {
                    TimeUnit.NANOSECONDS.timedWait(followers, left);
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    return;
                }
                left = deadline - System.nanoTime();
            }
        }
    }

    /**
     * @return sleeps so far.
     */
    long sleeps()
    {
        return sleeps;
    }

    /**
     * @return sleeps that ended by their timeout, not by a ring: with peers that publish, a wake-up lost
     *         would show here (a quiet job's health checks too).
     */
    long timedOut()
    {
        return timedOut;
    }

    private void drain(final SelectionKey key) throws IOException
    {
        if (key.isAcceptable())
        {
            final SocketChannel peer = server.accept();
            if (peer != null)
            {
                peer.configureBlocking(false);
                drainChannel(peer.register(selector, SelectionKey.OP_READ)); // its first ring came with it
            }
            return;
        }
        drainChannel(key);
    }

    private void drainChannel(final SelectionKey key) throws IOException
    {
        final SocketChannel channel = (SocketChannel)key.channel();
        int read;
        do
        {
            sink.clear();
            read = channel.read(sink);
        }
        while (read > 0);
        if (read < 0)
        {
            key.cancel(); // the ringing peer closed its end
            channel.close();
        }
    }

    /**
     * Closes the socket and every accepted connection, and removes the socket's file.
     */
    @Override
    public void close()
    {
        if (selector != null)
        {
            for (final SelectionKey key : selector.keys())
            {
                closeQuietly(key.channel());
            }
            closeQuietly(selector);
            io.sm4j.segment.SegmentFiles.deleteQuietly(path);
        }
    }

    private static void closeQuietly(final AutoCloseable closeable)
    {
        try
        {
            if (closeable != null)
            {
                closeable.close();
            }
        }
        catch (final Exception ignore)
        {
            // closing: nothing more to do
        }
    }
}
