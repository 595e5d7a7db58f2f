package io.sm4j.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Unix-domain connections between rank 0 (which listens) and rank 1 (which connects), and the control
 * channel's rendezvous: a rank waiting in {@link #sync} sleeps in the kernel, leaving the cores to
 * whatever the other rank measures (the one-JVM thread ping-pong needs both).
 */
final class PairSockets implements AutoCloseable
{
    private static final long CONNECT_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final SocketChannel control;
    private final SocketChannel data;
    private final ByteBuffer token = ByteBuffer.allocateDirect(1);
    private final int rank;

    private PairSockets(final int rank, final SocketChannel control, final SocketChannel data)
    {
        this.rank = rank;
        this.control = control;
        this.data = data;
    }

    /**
     * @param before run by rank 0 before it listens (creating files rank 1 will open once connected).
     */
    static PairSockets open(final Path dir, final int rank, final IoAction before) throws IOException
    {
        final Path path = dir.resolve("pair.sock");
        if (rank == 0)
        {
            before.run();
            try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX))
            {
                server.bind(UnixDomainSocketAddress.of(path));
                final SocketChannel control = server.accept();
                return new PairSockets(rank, control, server.accept());
            }
            finally
            {
                Files.deleteIfExists(path);
            }
        }
        final SocketChannel control = connect(path);
        return new PairSockets(rank, control, connect(path));
    }

    private static SocketChannel connect(final Path path) throws IOException
    {
        final long deadline = System.nanoTime() + CONNECT_TIMEOUT_NANOS;
        while (true)
        {
            try
            {
                return SocketChannel.open(UnixDomainSocketAddress.of(path));
            }
            catch (final IOException ex)
            {
                if (System.nanoTime() - deadline > 0)
                {
                    throw new IOException("rank 0 did not listen on " + path + " within 30 s", ex);
                }
                sleepMillis(5);
            }
        }
    }

    private static void sleepMillis(final long millis)
    {
        try
        {
            Thread.sleep(millis);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while connecting", ex);
        }
    }

    /**
     * @return the data connection, for the socket baseline.
     */
    SocketChannel data()
    {
        return data;
    }

    /**
     * Both ranks return once both have called it: rank 0 sends a byte and waits for the answer, rank 1
     * waits (blocked in the kernel) for the byte and answers.
     */
    void sync() throws IOException
    {
        exchange(true);
    }

    /**
     * A {@link #sync} that also votes: both ranks return whether both said yes.
     */
    boolean both(final boolean mine)
    {
        try
        {
            final boolean theirs = exchange(mine); // always: the other rank waits for this rank's answer
            return mine && theirs;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * A {@link #sync} that carries a yes or no each way.
     *
     * @return the other rank's answer.
     */
    private boolean exchange(final boolean mine) throws IOException
    {
        if (rank == 0)
        {
            token.put(0, (byte)(mine ? 1 : 0));
            write();
            read();
            return token.get(0) == 1;
        }
        read();
        final boolean theirs = token.get(0) == 1;
        token.put(0, (byte)(mine ? 1 : 0));
        write();
        return theirs;
    }

    private void write() throws IOException
    {
        token.clear();
        while (token.hasRemaining())
        {
            control.write(token);
        }
    }

    private void read() throws IOException
    {
        token.clear();
        while (token.hasRemaining())
        {
            if (control.read(token) < 0)
            {
                throw new IOException("the peer closed the control channel");
            }
        }
    }

    @Override
    public void close() throws IOException
    {
        control.close();
        data.close();
    }

    /** An I/O step. */
    @FunctionalInterface
    interface IoAction
    {
        void run() throws IOException;
    }
}
