package io.sm4j.it;

import io.sm4j.message.Communicator;
import io.sm4j.transport.Endpoint;
import io.sm4j.transport.Endpoints;
import io.sm4j.transport.PeerMemory;
import io.sm4j.transport.TransportOptions;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * Two ranks send each other large messages from direct buffers at an odd offset, which go for the receiver to
 * read straight out of the sender's process ({@link PeerMemory}), into an array, a direct buffer and a shared
 * buffer in turn, every byte checked; each rank prints the bytes it read out of its peer's process, and how. With the
 * argument {@code refuse}, rank 1 reads no peer's memory ({@link TransportOptions.PeerReads#OFF}): rank 0's
 * messages reach it through the pipeline instead.
 */
public final class PeerReadApp
{
    /** Large messages around the threshold, one not a multiple of anything, one of several pipelines' worth. */
    static final int[] SIZES = { PeerMemory.MIN_BYTES, PeerMemory.MIN_BYTES + 1, 300_001, (4 << 20) + 3 };

    private PeerReadApp()
    {
    }

    public static void main(final String[] args)
    {
        final int rank = Integer.parseInt(System.getenv(Endpoints.RANK_ENV));
        final TransportOptions env = TransportOptions.fromEnvironment(System.getenv());
        final TransportOptions options = args.length > 0 && args[0].equals("refuse") && rank == 1 ?
            env.withPeerReads(TransportOptions.PeerReads.OFF) : env;
        final Endpoint endpoint = Endpoints.attach(Path.of(System.getenv(Endpoints.SEGMENT_ENV)), rank,
            Integer.parseInt(System.getenv(Endpoints.SIZE_ENV)), options);
        try (Communicator comm = new Communicator(endpoint))
        {
            for (int sender = 0; sender < 2; sender++)
            {
                for (int i = 0; i < SIZES.length; i++)
                {
                    exchange(comm, sender, SIZES[i], i % 3);
                }
            }
            final PeerMemory reader = endpoint.peerMemory();
            System.out.println("rank " + rank + " read " + (reader == null ? 0 : reader.bytesRead()) +
                " bytes out of its peer's process" + (reader == null ? "" : " (" + reader.describe() + ")") +
                ", every byte checked");
        }
    }

    private static void exchange(final Communicator comm, final int sender, final int size, final int kind)
    {
        if (comm.rank() == sender)
        {
            final ByteBuffer message = ByteBuffer.allocateDirect(size + 3).position(3).slice();
            for (int i = 0; i < size; i++)
            {
                message.put(i, (byte)(i * 31 + size));
            }
            comm.send(1 - sender, size, message);
            return;
        }
        final MutableDirectBuffer into = kind == 0 ? new UnsafeBuffer(new byte[size + 5]) :
            kind == 1 ? new UnsafeBuffer(ByteBuffer.allocateDirect(size + 5)) : comm.allocate(size + 5);
        comm.recv(sender, size, into, 5, size, null);
        for (int i = 0; i < size; i++)
        {
            if (into.getByte(5 + i) != (byte)(i * 31 + size))
            {
                throw new IllegalStateException("message of " + size + " bytes from rank " + sender + ": byte " + i + " differs");
            }
        }
    }
}
