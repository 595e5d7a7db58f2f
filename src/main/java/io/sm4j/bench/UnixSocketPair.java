package io.sm4j.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * The kernel's way as a baseline: a Unix domain stream socket ({@code SocketChannel} over a
 * {@code UnixDomainSocketAddress}), blocking, each message framed by a 4-byte length so that an empty
 * message is still a message.
 */
final class UnixSocketPair implements PairTransport
{
    private final SocketChannel channel;
    private final ByteBuffer out = ByteBuffer.allocateDirect(Integer.BYTES + MAX_MESSAGE);
    private final ByteBuffer in = ByteBuffer.allocateDirect(Integer.BYTES + MAX_MESSAGE);

    UnixSocketPair(final SocketChannel channel)
    {
        this.channel = channel;
    }

    @Override
    public String name()
    {
        return "uds";
    }

    @Override
    public void send(final int length)
    {
        out.clear().putInt(0, length).limit(Integer.BYTES + length);
        try
        {
            while (out.hasRemaining())
            {
                channel.write(out);
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    @Override
    public void receive(final int length)
    {
        in.clear().limit(Integer.BYTES + length);
        try
        {
            while (in.hasRemaining())
            {
                if (channel.read(in) < 0)
                {
                    throw new IOException("the peer closed the socket");
                }
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        if (in.getInt(0) != length)
        {
            throw new IllegalStateException("framing: expected " + length + " bytes, the header says " + in.getInt(0));
        }
    }

    @Override
    public void close()
    {
        try
        {
            channel.close();
        }
        catch (final IOException ignore)
        {
            // closing at the end of the run
        }
    }
}
