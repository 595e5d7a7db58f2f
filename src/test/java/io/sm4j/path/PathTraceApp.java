package io.sm4j.path;

import io.sm4j.message.ThreadJob;
import io.sm4j.transport.TransportOptions;

/**
 * The debuggee of {@link PathTraceTest}: two ranks as threads of this JVM ping-pong blocking 8-byte
 * messages until the path is warm, then rank 0 sends one more to rank 1, which receives it with a blocking
 * {@code recv}. {@link #mark} brackets that one message for the debugger.
 * <p>
 * The ranks spin while they wait ({@link TransportOptions.Idle#SPIN}): a warm ping-pong's waits end inside
 * the default policy's spin phase, but the debugger's events stretch the traced message's send a
 * thousandfold, long enough for a waiting receiver under the default policy to go on to yield, arm its
 * doorbell or not by chance, and so the count would measure the debugger's speed.
 */
public final class PathTraceApp
{
    private static final int WARM_ROUNDS = 20_000;
    private static final int TAG = 7;

    private static volatile boolean receiverMarked;
    private static volatile boolean traced;

    private PathTraceApp()
    {
    }

    /**
     * The debugger's breakpoint: 1 starts the trace, 2 ends it.
     */
    static void mark(final int phase)
    {
        if (phase == 2)
        {
            traced = true;
        }
    }

    public static void main(final String[] args) throws Exception
    {
        final TransportOptions spin = TransportOptions.defaults().withIdle(TransportOptions.Idle.SPIN);
        ThreadJob.run(null, 2, spin, comm ->
        {
            final byte[] message = new byte[8];
            final int peer = 1 - comm.rank();
            for (int i = 0; i < WARM_ROUNDS; i++)
            {
                if (comm.rank() == 0)
                {
                    comm.send(peer, TAG, message);
                    comm.recv(peer, TAG, message);
                }
                else
                {
                    comm.recv(peer, TAG, message);
                    comm.send(peer, TAG, message);
                }
            }
            if (comm.rank() == 1)
            {
                mark(1);
                receiverMarked = true;
                comm.recv(peer, TAG, message);
                mark(2);
            }
            else
            {
                while (!receiverMarked)
                {
                    Thread.onSpinWait();
                }
                comm.send(peer, TAG, message);
                while (!traced)
                {
                    Thread.onSpinWait();
                }
            }
        });
    }
}
