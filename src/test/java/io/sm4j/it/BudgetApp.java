package io.sm4j.it;

import io.sm4j.message.Communicator;
import io.sm4j.message.Request;

import java.time.Duration;

/**
 * Receives in an order the senders did not send in, so that messages pile up as unexpected:
 * <ul>
 *   <li>{@code order COUNT SIZE}: ranks 1..n-1 each isend COUNT messages of SIZE bytes to rank 0, which
 *       receives all of rank n-1's first, then rank n-2's, ... (the others' messages wait meanwhile);</li>
 *   <li>{@code behind COUNT SIZE}: rank 1 isends COUNT messages of SIZE bytes, then one byte with another
 *       tag; rank 0 receives that byte first, then the COUNT messages. With {@code stall} as a fourth
 *       argument rank 0 first waits 3 s for the byte in vain (the budget holds the messages ahead of it
 *       back), then receives in order; with {@code forever} it waits without a deadline, which the budget
 *       makes impossible: it must fail with one line.</li>
 *   <li>{@code reply COUNT SIZE AHEAD COMPUTE}: rank 1 isends COUNT messages of SIZE bytes and, once AHEAD of
 *       them have left (and after COMPUTE ms of work), receives 1 MiB that rank 0 sends before it receives any of
 *       them: rank 1's answers to that send come behind messages rank 0's budget declines.</li>
 * </ul>
 * Every message's bytes are checked. Prints "budget ok" with the largest unexpected bytes rank 0 kept, or
 * exits 1.
 */
public final class BudgetApp
{
    private static final int DATA = 1;
    private static final int LAST = 2;

    private BudgetApp()
    {
    }

    public static void main(final String[] args)
    {
        final boolean behind = args[0].equals("behind");
        final boolean reply = args[0].equals("reply");
        final int count = Integer.parseInt(args[1]);
        final int size = Integer.parseInt(args[2]);
        final String wait = args.length > 3 ? args[3] : "";
        try (Communicator comm = Communicator.attachFromEnvironment())
        {
            if (reply)
            {
                replyPastTheBudget(comm, count, size, Integer.parseInt(args[3]), Long.parseLong(args[4]));
            }
            else if (comm.rank() != 0)
            {
                send(comm, count, size, behind);
            }
            else if (behind)
            {
                receiveBehind(comm, count, size, wait);
            }
            else
            {
                long most = 0;
                for (int peer = comm.size() - 1; peer > 0; peer--)
                {
                    most = Math.max(most, receiveAll(comm, peer, count, size));
                }
                System.out.println("budget ok: at most " + most + " unexpected bytes kept");
            }
        }
    }

    /**
     * Sends message i from offset i of one pattern buffer: COUNT large isends need no COUNT buffers.
     */
    private static void send(final Communicator comm, final int count, final int size, final boolean behind)
    {
        final Request[] sends = startSends(comm, count, size);
        if (behind)
        {
            comm.send(0, LAST, new byte[]{ 42 });
        }
        for (final Request send : sends)
        {
            send.await();
        }
    }

    /**
     * Rank 1 isends COUNT messages, waits until the first AHEAD have left, computes for COMPUTE ms (the fifth
     * argument), then receives a large message from rank 0, which sends it before it receives
     * any of them: rank 1's answers to that send (its rendezvous ACK, the fragments it gives back) come after
     * messages that rank 0's budget holds back.
     */
    private static void replyPastTheBudget(
        final Communicator comm, final int count, final int size, final int ahead, final long computeMillis)
    {
        final byte[] large = new byte[1 << 20];
        if (comm.rank() == 1)
        {
            final Request[] sends = startSends(comm, count, size);
            sends[ahead - 1].await(); // AHEAD messages are in shared memory: the answers to rank 0 go behind them
            compute(computeMillis); // rank 0 waits meanwhile for the ACK of its send, which is not sent yet
            check(comm.recv(0, LAST, large).length() == large.length, "the large message's length");
            for (int i = 0; i < large.length; i++)
            {
                check(large[i] == (byte)(i * 7), "the large message is corrupt at byte " + i);
            }
            for (final Request send : sends)
            {
                send.await();
            }
            return;
        }
        for (int i = 0; i < large.length; i++)
        {
            large[i] = (byte)(i * 7);
        }
        comm.send(1, LAST, large);
        final long kept = receiveAll(comm, 1, count, size);
        System.out.println("budget ok: at most " + kept + " unexpected bytes kept");
    }

    /**
     * Works, away from sm4j, for {@code millis}.
     */
    private static void compute(final long millis)
    {
        final long end = System.nanoTime() + millis * 1_000_000;
        while (System.nanoTime() < end)
        {
            Thread.onSpinWait(); // busy, as a computing rank is: it does not call sm4j meanwhile
        }
    }

    private static Request[] startSends(final Communicator comm, final int count, final int size)
    {
        final byte[] pattern = new byte[size + count];
        for (int i = 0; i < pattern.length; i++)
        {
            pattern[i] = (byte)(comm.rank() * 31 + i);
        }
        final Request[] sends = new Request[count];
        for (int i = 0; i < count; i++)
        {
            sends[i] = comm.isend(0, DATA, pattern, i, size);
        }
        return sends;
    }

    private static void receiveBehind(final Communicator comm, final int count, final int size, final String wait)
    {
        final byte[] last = new byte[1];
        final Request lastReceive = comm.irecv(1, LAST, last, 0, 1);
        if (wait.equals("stall"))
        {
            check(lastReceive.await(Duration.ofSeconds(3)) == null, "the byte arrived past a full budget");
        }
        else if (wait.equals("forever"))
        {
            lastReceive.await();
            check(false, "the byte arrived past a full budget");
        }
        else
        {
            lastReceive.await();
        }
        final long kept = receiveAll(comm, 1, count, size);
        lastReceive.await();
        check(last[0] == 42, "the last byte is " + last[0]);
        System.out.println("budget ok: at most " + kept + " unexpected bytes kept");
    }

    /**
     * @return the unexpected bytes kept when the receives began.
     */
    private static long receiveAll(final Communicator comm, final int peer, final int count, final int size)
    {
        final long kept = comm.unexpectedBytes();
        final byte[] buffer = new byte[size];
        for (int i = 0; i < count; i++)
        {
            check(comm.recv(peer, DATA, buffer).length() == size, "message " + i + " from rank " + peer + ": wrong length");
            for (int k = 0; k < size; k++)
            {
                if (buffer[k] != (byte)(peer * 31 + i + k))
                {
                    check(false, "message " + i + " from rank " + peer + " is corrupt at byte " + k);
                }
            }
        }
        return kept;
    }

    private static void check(final boolean ok, final String what)
    {
        if (!ok)
        {
            System.out.println("rank failed: " + what);
            System.exit(1);
        }
    }
}
