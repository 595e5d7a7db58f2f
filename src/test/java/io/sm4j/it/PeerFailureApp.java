package io.sm4j.it;

import io.sm4j.message.Communicator;
import io.sm4j.message.Request;
import io.sm4j.segment.Sm4jException;
import io.sm4j.transport.Endpoints;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Rank program for the failure cases a peer causes (the first argument names the case). Each rank prints
 * what it saw as "rank R saw: MESSAGE" and exits 4 when the failure reached it as an exception, as a user's
 * program would; whatever else happens (a hang, an {@link Error}) is for the test to see.
 */
public final class PeerFailureApp
{
    private PeerFailureApp()
    {
    }

    public static void main(final String[] args) throws IOException
    {
        final int rank = Integer.parseInt(System.getenv(Endpoints.RANK_ENV));
        switch (args[0])
        {
            case "barrier-after-close" -> barrierAfterClose();
            case "stream-detach" -> streamDetach();
            case "throw" -> throwWhileOthersWait(Integer.parseInt(args[1]));
            case "truncate" -> truncate(rank);
            case "long-line" -> longLine(Integer.parseInt(args[1]));
            default -> throw new IllegalArgumentException("unknown case " + args[0]);
        }
    }

    /** Rank 1 closes at once and exits 0; the others enter a barrier it will never enter. */
    private static void barrierAfterClose()
    {
        try (Communicator comm = Communicator.attachFromEnvironment())
        {
            if (comm.rank() == 1)
            {
                return;
            }
            comm.barrier();
            System.out.println("rank " + comm.rank() + " left the barrier");
        }
        catch (final Sm4jException ex)
        {
            saw(ex);
        }
    }

    /**
     * Rank 0 sends 64 MiB to rank 1, which takes the first fragments and closes; the send must fail, and go on
     * failing, instead of waiting forever.
     */
    private static void streamDetach()
    {
        try (Communicator comm = Communicator.attachFromEnvironment())
        {
            final byte[] big = new byte[64 << 20];
            if (comm.rank() == 1)
            {
                comm.irecv(0, 7, big, 0, big.length);
                while (comm.progress() == 0)
                {
                    Thread.onSpinWait(); // until the RNDV is matched and acknowledged
                }
                for (int i = 0; i < 4; i++)
                {
                    comm.progress(); // some FRAG fragments
                }
                System.out.println("rank 1 closes mid-stream");
                return;
            }
            final Request send = comm.isend(1, 7, big, 0, big.length);
            Sm4jException first = null;
            while (first == null)
            {
                try
                {
                    if (send.test())
                    {
                        System.out.println("rank 0: the send completed");
                        return;
                    }
                }
                catch (final Sm4jException ex)
                {
                    first = ex;
                }
            }
            System.out.println("rank 0 test saw: " + first.getMessage());
            send.await();
        }
        catch (final Sm4jException ex)
        {
            saw(ex);
        }
    }

    /**
     * The last rank throws {@code what} (an OutOfMemoryError, as a rank that fills its heap) while the others
     * wait in a receive from it; it closes its communicator first, as try-with-resources does.
     */
    private static void throwWhileOthersWait(final int fillHeap)
    {
        try (Communicator comm = Communicator.attachFromEnvironment())
        {
            if (comm.rank() == comm.size() - 1)
            {
                final List<long[]> heap = new ArrayList<>();
                while (fillHeap > 0)
                {
                    heap.add(new long[1 << 17]);
                }
                throw new IllegalStateException("rank " + comm.rank() + " failed on purpose");
            }
            comm.recv(comm.size() - 1, 0, new byte[8]);
        }
    }

    /**
     * Both ranks pass a barrier; rank 0 truncates the segment file to 0 bytes, then both wait for a message.
     */
    private static void truncate(final int rank) throws IOException
    {
        try (Communicator comm = Communicator.attachFromEnvironment())
        {
            comm.barrier();
            if (rank == 0)
            {
                try (FileChannel file = FileChannel.open(Path.of(System.getenv(Endpoints.SEGMENT_ENV)), StandardOpenOption.WRITE))
                {
                    file.truncate(0);
                }
            }
            comm.recv(1 - rank, 0, new byte[8]);
        }
        catch (final Sm4jException ex)
        {
            saw(ex);
        }
    }

    /** Prints one line of {@code length} characters without a newline, then "after". */
    private static void longLine(final int length)
    {
        final PrintStream out = new PrintStream(System.out, false);
        final byte[] piece = new byte[1 << 20];
        Arrays.fill(piece, (byte)'x');
        for (int left = length; left > 0; left -= piece.length)
        {
            out.write(piece, 0, Math.min(left, piece.length));
        }
        out.println();
        out.println("after");
        out.flush();
    }

    private static void saw(final Sm4jException ex)
    {
        System.out.println("rank " + System.getenv(Endpoints.RANK_ENV) + " saw: " + ex.getMessage());
        System.out.flush();
        System.exit(4);
    }
}
