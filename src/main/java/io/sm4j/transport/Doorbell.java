package io.sm4j.transport;

import io.sm4j.layout.DoorbellDescriptor;
import io.sm4j.segment.SegmentFiles;
import org.agrona.CloseHelper;
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
import java.util.concurrent.atomic.AtomicReference;

/**
 * This rank's doorbell: its word in shared memory ({@link DoorbellDescriptor}) and the kernel
 * object it sleeps on (the UCX shared-memory pattern: arm, look again, block; a publisher that finds the
 * rank armed wakes it): a futex on the word itself where this JVM and every rank of the job can use one
 * ({@link Futex}, JDK 22+), else a Unix domain socket beside the segment that ringing peers write one byte
 * to (JDK 17 has no futex; a socket is the cheapest object a peer process can wake a JVM thread through).
 * The armed value says which ({@code ARMED_FUTEX} or {@code ARMED}), so a publisher wakes the rank the way it
 * sleeps.
 * <p>
 * Implementation notes: arming (a full fence) comes before the caller's first look at its in-bound paths;
 * then it {@link #nap}s, still armed, looks a second time and only then {@link #sleep}s. A publisher reads
 * the word after its store without a fence ({@link BellWord}): either a look finds the message, or the
 * publisher finds the rank armed and rings. A ring that arrives after the rank woke by timeout stays in the
 * socket and only makes the next sleep end early. The rings that ended a select stay unread, and their keys
 * selected, until the sleeping thread next blocks ({@link #drainRings}): off its way to its message; the
 * selected set is the current sleeper's (MULTIPLE: the role changes hands through the sleeper CAS).
 * <p>
 * In {@link io.sm4j.layout.ThreadMode#MULTIPLE} mode one thread at a time is the sleeper: it arms, blocks on
 * the socket or the futex and, once woken, wakes the other waiting threads, which wait on a process-local monitor
 * ({@link #follow}, at most {@link #FOLLOW_NANOS} at a time) instead of arming. A poll on another thread
 * that delivers something wakes the sleeper ({@link #wakeSleeper}): it may be what it waits for. A thread
 * that armed and then left the endpoint without sleeping or disarming (raw API loops that never call
 * {@code endWait}) loses the role to the next thread that wants it after {@link #STALE_ARM_NANOS}. Without a socket (the directory does not take one, or its path is too
 * long), {@link #isAvailable()} is false and the rank arms only for a futex (when every rank can use one);
 * else it yields, then parks 200 us at a time.
 */
final class Doorbell implements AutoCloseable
{
    private final AtomicBuffer word;
    /** Null if this rank does not sleep on a futex. */
    private final Futex futex;
    private final PeerBells peers;
    /** What the current or last arm stored: ARMED (the socket) or ARMED_FUTEX. */
    private long armedWith = DoorbellDescriptor.ARMED;
    private final Path path;
    private final ServerSocketChannel server;
    private final Selector selector;
    private final ByteBuffer sink = ByteBuffer.allocateDirect(256);
    private final boolean multiple;
    /** MULTIPLE: longest a follower waits before it looks again (and may take a stale sleeper's role). */
    private static final long FOLLOW_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** MULTIPLE: an armed thread that has not gone to sleep for this long has left: its role may be taken. */
    private static final long STALE_ARM_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final AtomicReference<Thread> sleeper = new AtomicReference<>();
    private volatile boolean selecting;
    /**
     * An {@link #interrupt} not yet taken by a futex sleep: a futex wake, unlike a selector's, does not carry
     * over to a wait that had not begun.
     */
    private volatile boolean interrupted;
    private volatile long armedAt;
    private final Object followers = new Object();
    private long generation;
    /** Blocks so far (naps and sleeps), and sleeps that ended by their timeout (racy reads: statistics). */
    private volatile long sleeps;
    private volatile long timedOut;
    private volatile long onFutex;

    private Doorbell(
        final AtomicBuffer word, final Futex futex, final PeerBells peers, final Path path,
        final ServerSocketChannel server, final Selector selector, final boolean multiple)
    {
        this.word = word;
        this.futex = futex;
        this.peers = peers;
        this.path = path;
        this.server = server;
        this.selector = selector;
        this.multiple = multiple;
    }

    /**
     * Binds the socket at {@code path} (replacing a stale file of a dead job) and resets the word.
     *
     * @param futex the futex caller, or null if this rank sleeps on its socket alone (and cannot ring a futex).
     * @param peers the job's doorbells: whether every rank can use futexes.
     * @return the doorbell; {@link #isAvailable()} false if no socket could be bound (the reason is logged).
     */
    static Doorbell open(final AtomicBuffer word, final Futex futex, final PeerBells peers, final Path path, final boolean multiple)
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
            return new Doorbell(word, futex, peers, path, server, selector, multiple);
        }
        catch (final IOException | RuntimeException ex)
        {
            CloseHelper.quietClose(server);
            CloseHelper.quietClose(selector);
            SegmentFiles.deleteQuietly(path); // bound before the failure, perhaps
            System.getLogger("io.sm4j").log(System.Logger.Level.WARNING, "no doorbell at " + path + " (" + ex +
                "): this rank waits by yielding and parking instead of sleeping");
            return new Doorbell(word, futex, peers, path, null, null, multiple);
        }
    }

    boolean isAvailable()
    {
        return server != null;
    }

    /**
     * Arms the bell before the caller's looks at its in-bound paths: for a futex wait if every rank of the
     * job can ring one, else for the socket. In MULTIPLE mode only one thread arms: the others {@link #follow}.
     *
     * @return false if it would have to sleep on a socket it does not have, or another thread is the sleeper.
     */
    boolean tryArm()
    {
        final long armed = futex != null && peers.everyRankCanFutex() ? DoorbellDescriptor.ARMED_FUTEX : DoorbellDescriptor.ARMED;
        // without a socket a rank may still sleep on its futex; else it never arms, and parks (isAvailable)
        if (armed == DoorbellDescriptor.ARMED && server == null || multiple && !takeRole())
        {
            return false;
        }
        armedWith = armed;
        BellWord.arm(word, armed);
        return true;
    }

    /**
     * MULTIPLE: makes the calling thread the sleeper, if nobody is, or if the sleeper armed long ago and
     * never went to sleep (it left).
     */
    private boolean takeRole()
    {
        final Thread me = Thread.currentThread();
        final Thread holder = sleeper.get();
        final boolean free = holder == null ||
            holder != me && !selecting && System.nanoTime() - armedAt > STALE_ARM_NANOS;
        if (holder != me && !(free && sleeper.compareAndSet(holder, me)))
        {
            return false;
        }
        armedAt = System.nanoTime();
        return true;
    }

    /**
     * Blocks the armed thread until a peer rings or {@code timeoutNanos} pass, then disarms.
     */
    void sleep(final long timeoutNanos)
    {
        if (!isSleeper())
        {
            return; // its role was taken while it was away: the taker sleeps for the rank
        }
        try
        {
            sleeps++; // one sleeper at a time: no lost update
            if (!select(timeoutNanos))
            {
                timedOut++;
            }
        }
        finally
        {
            disarm();
        }
    }

    /**
     * The nap between the armed thread's first and second look ({@link BellWord}): blocks until a peer rings
     * or {@code timeoutNanos} pass, and stays armed unless it was rung.
     *
     * @return true if still armed (nobody rang): the caller looks again, then {@link #sleep}s; false if rung
     *         (the thread is disarmed, and arms again before it sleeps).
     */
    boolean nap(final long timeoutNanos)
    {
        if (!isSleeper())
        {
            return false;
        }
        boolean armed = false;
        try
        {
            sleeps++;
            select(timeoutNanos);
            armed = BellWord.isArmed(word); // a ring taken after this read wakes the sleep that follows at once
        }
        finally
        {
            if (!armed)
            {
                disarm(); // rung: a publisher took the ring; a sleep now would not be rung again
            }
        }
        return armed;
    }

    private boolean isSleeper()
    {
        return !multiple || sleeper.get() == Thread.currentThread();
    }

    /**
     * @return true if woken before the timeout: rung (a {@link Selector#wakeup} selects no key, and reads as
     *         a timeout), or for a futex, woken at all.
     */
    private boolean select(final long timeoutNanos)
    {
        if (armedWith == DoorbellDescriptor.ARMED_FUTEX)
        {
            onFutex++; // one sleeper at a time
            selecting = true;
            try
            {
                if (interrupted)
                {
                    interrupted = false;
                    return true;
                }
                // the kernel compares the word with ARMED_FUTEX and blocks only while it holds: a ring that took
                // it to RUNG before this call returns at once, one after it wakes it (no lost wake-up)
                final long start = System.nanoTime();
                futex.await(word.addressOffset(), (int)DoorbellDescriptor.ARMED_FUTEX, timeoutNanos);
                // ended by its timeout or not, whatever the word says: a ring taken but never delivered is a
                // timeout, a late wake of a ring an earlier sleep took (or an interrupt) is not
                return System.nanoTime() - start < timeoutNanos;
            }
            finally
            {
                selecting = false;
            }
        }
        // NOTE: sm4j's waits end by a message, a ring, the job's abort or a dead peer, not by an interrupt (nor do
        // MPI's). With the thread's interrupt status set, a select returns at once and a channel's accept or read
        // closes the channel (ClosedByInterruptException): the doorbell's server socket too, and no peer could
        // ring this rank again. The status is put aside for the block and set again after it.
        final boolean wasInterrupted = Thread.interrupted();
        try
        {
            selecting = true;
            // NOTE: a publisher takes the ring (its CAS to RUNG) before it writes its byte, so a byte the drain
            // reads may be this arm's ring, and then the word reads RUNG: without this look the select would wait
            // for a ring already read (a nap's millisecond, a sleep's whole timeout). If nothing was read, a
            // ring taken has its byte still to come or unread in its socket, and the select returns on it.
            if (drainRings() && !BellWord.isArmed(word))
            {
                return true; // a byte of this arm's still in flight ends a later block early, once
            }
            // the rings stay in their sockets, and their keys selected, until the next block (drainRings): the
            // woken thread goes straight to its in-bound paths
            return selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNanos))) > 0;
        }
        catch (final IOException ex)
        {
            return false; // a broken selector: the caller's loop goes on polling; the timeout bounded this wait
        }
        finally
        {
            selecting = false;
            if (wasInterrupted)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Ends the calling thread's turn as the armed sleeper (it woke, or found work after arming): publishers
     * stop ringing, and in MULTIPLE mode the waiting threads look again.
     */
    void disarm()
    {
        if (multiple && sleeper.get() != Thread.currentThread())
        {
            return; // not the sleeper (its role was taken): the word is the taker's
        }
        BellWord.disarm(word); // before the role is given up: a store after it could overwrite the next sleeper's ARMED
        if (multiple)
        {
            sleeper.compareAndSet(Thread.currentThread(), null);
            synchronized (followers)
            {
                generation++;
                followers.notifyAll();
            }
        }
    }

    /**
     * MULTIPLE only (the caller checks): a poll on another thread delivered something; the sleeper may wait
     * for it, so it wakes and looks again.
     */
    void wakeSleeper()
    {
        if (selecting && sleeper.get() != Thread.currentThread())
        {
            interrupt();
        }
    }

    /**
     * Ends the current or the next sleep or nap of whichever thread sleeps: the endpoint is closing.
     */
    void interrupt()
    {
        if (selector != null)
        {
            selector.wakeup();
        }
        if (futex != null)
        {
            // NOTE: the flag (volatile) before the CAS: a sleeper between its check of the flag and its wait
            // armed before that check, so the CAS finds ARMED_FUTEX and the kernel's compare fails its wait
            interrupted = true;
            if (BellWord.takeFutexRing(word))
            {
                futex.wake(word.addressOffset());
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
            final long wait = Math.min(timeoutNanos, FOLLOW_NANOS);
            final long deadline = System.nanoTime() + wait;
            long left = wait;
            boolean wasInterrupted = false;
            while (sleeper.get() != null && generation == seen && left > 0)
            {
                try
                {
                    TimeUnit.NANOSECONDS.timedWait(followers, left);
                }
                catch (final InterruptedException ex)
                {
                    wasInterrupted = true; // not a reason to stop waiting (see select), nor to spin: set again below
                }
                left = deadline - System.nanoTime();
            }
            if (wasInterrupted)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * @return times this rank blocked on its doorbell so far, naps included.
     */
    long sleeps()
    {
        return sleeps;
    }

    /**
     * @return sleeps (not naps, which end by their timeout unless rung) that ended by their timeout, not by a
     *         ring: with peers that publish, a wake-up lost would show here (a quiet job's health checks too).
     */
    long timedOut()
    {
        return timedOut;
    }

    /**
     * @return blocks so far (naps and sleeps) that were futex waits rather than socket selects.
     */
    long onFutex()
    {
        return onFutex;
    }

    /**
     * Reads the rings that ended the last select (its selected keys), and accepts the peers that connected:
     * done before the next block rather than on waking, where each read is a system call between the woken
     * thread and its message (about 10 us of a 42 us wake-up's median here, with two reads per ring:
     * docs/benchmarks.md, "Seventeenth session"). Unread, a ring would end the next select at once.
     *
     * @return true if a ring was read.
     */
    private boolean drainRings() throws IOException
    {
        boolean read = false;
        try
        {
            for (final SelectionKey key : selector.selectedKeys())
            {
                read |= drain(key);
            }
            return read;
        }
        finally
        {
            selector.selectedKeys().clear(); // a key that failed is not drained again at every block
        }
    }

    /**
     * @return true if a ring was read.
     */
    private boolean drain(final SelectionKey key) throws IOException
    {
        if (key.isAcceptable())
        {
            final SocketChannel peer = server.accept();
            if (peer == null)
            {
                return false;
            }
            peer.configureBlocking(false);
            return drainChannel(peer.register(selector, SelectionKey.OP_READ)); // its first ring came with it
        }
        return drainChannel(key);
    }

    private boolean drainChannel(final SelectionKey key) throws IOException
    {
        final SocketChannel channel = (SocketChannel)key.channel();
        boolean rung = false;
        int read;
        do
        {
            sink.clear();
            read = channel.read(sink);
            rung |= read > 0;
        }
        while (read == sink.capacity()); // a shorter read took all the socket held: no second system call
        if (read < 0)
        {
            key.cancel(); // the ringing peer closed its end
            channel.close();
        }
        return rung;
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
                CloseHelper.quietClose(key.channel());
            }
            CloseHelper.quietClose(selector);
            SegmentFiles.deleteQuietly(path);
        }
    }
}
