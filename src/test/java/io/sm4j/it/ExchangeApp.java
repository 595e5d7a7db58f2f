package io.sm4j.it;

import io.sm4j.transport.CopyingSends;
import io.sm4j.transport.Endpoint;
import io.sm4j.transport.FragmentView;
import io.sm4j.transport.Endpoints;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A rank of the all-pairs exchange test: sends {@code count} fragments to every peer, sizes cycling through
 * 0..maxPayload, and checks that every fragment from every peer arrives once, in order, intact. With a
 * second argument {@code flood} it polls only when a send is refused for want of room (a mutual flood: the
 * only receiving is what back-pressure forces). Exit code 0 when everything arrived, 1 with a message otherwise.
 */
public final class ExchangeApp
{
    private ExchangeApp()
    {
    }

    public static void main(final String[] args)
    {
        final int count = Integer.parseInt(args[0]);
        final boolean flood = args.length > 1 && args[1].equals("flood");
        try (Endpoint endpoint = Endpoints.attachFromEnvironment())
        {
            final int me = endpoint.rank();
            final int n = endpoint.size();
            final long[] expected = new long[n];
            final String[] failure = new String[1];
            final int maxPayload = endpoint.maxPayload();
            final UnsafeBuffer payload = new UnsafeBuffer(new byte[maxPayload]);
            final int total = count * (n - 1);
            int received = 0;
            for (int i = 0; i < count; i++)
            {
                for (int k = 1; k < n; k++)
                {
                    final int dest = (me + k) % n;
                    final int length = i % (maxPayload + 1);
                    for (int j = 0; j < length; j++)
                    {
                        payload.putByte(j, pattern(me, dest, i, j));
                    }
                    while (!CopyingSends.trySend(endpoint, dest, payload, 0, length))
                    {
                        final int work = endpoint.poll(f -> check(f, me, maxPayload, expected, failure), 16);
                        received += work;
                        if (work == 0)
                        {
                            endpoint.idle(); // refused and nothing came: let the peer that holds our room run
                        }
                    }
                    if (!flood)
                    {
                        received += endpoint.poll(f -> check(f, me, maxPayload, expected, failure), 16);
                    }
                }
            }
            while (received < total && failure[0] == null)
            {
                final int work = endpoint.poll(f -> check(f, me, maxPayload, expected, failure), 64);
                received += work;
                if (work == 0)
                {
                    endpoint.idle();
                }
            }
            if (failure[0] != null)
            {
                System.err.println("FAILED: " + failure[0]);
                System.exit(1);
            }
            System.out.println("rank " + me + " received " + received + " fragments from " + (n - 1) + " peers, all in order");
        }
    }

    private static void check(
        final FragmentView f, final int me, final int maxPayload, final long[] expected, final String[] failure)
    {
        final int src = f.source();
        final long seq = expected[src]++; // a lost or reordered fragment shows as a wrong length or pattern
        if (f.length() != seq % (maxPayload + 1))
        {
            failure[0] = "from " + src + ": fragment " + seq + " has length " + f.length();
            return;
        }
        for (int j = 0; j < f.length(); j++)
        {
            if (f.buffer().getByte(f.offset() + j) != pattern(src, me, (int)seq, j))
            {
                failure[0] = "from " + src + ": fragment " + seq + " byte " + j + " corrupt";
                return;
            }
        }
    }

    static byte pattern(final int src, final int dst, final int i, final int j)
    {
        return (byte)(src * 31 + dst * 17 + i * 7 + j);
    }
}
