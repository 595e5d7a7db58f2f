package io.sm4j.message;

import java.util.ArrayList;

/**
 * The receives of one rank posted and not yet matched. A receive that names its source and tag waits in the
 * bin of that pair ({@link Bins}), a wildcard one in a list of its own; each carries its post number, so
 * an arriving message takes the earliest posted receive that accepts it: the head of its bin or the first
 * wildcard receive that accepts it, whichever was posted first. The common case, no wildcards, is O(1).
 * <p>
 * The most common case of all, a blocking receive with nothing else posted, keeps its receive in
 * {@link #lone} instead: while it is there the bins and the wildcard list are empty, so it is the earliest
 * posted receive, and posting and taking it cost a compare instead of a hash map's lookups (measured by
 * jmh's {@code MessagePathBenchmark.communicator}). A second post moves it into the bins first.
 */
final class PostedReceives
{
    private final Bins<RecvRequest> exact = new Bins<>();
    private final ArrayList<RecvRequest> wildcards = new ArrayList<>();
    private long nextPostNumber;

    /** The only posted receive, or null (then any number wait in the bins and the wildcard list). */
    private RecvRequest lone;
    /** Receives in the bins and the wildcard list. */
    private int queued;

    void add(final RecvRequest request)
    {
        request.postNumber = nextPostNumber++;
        if (lone == null && queued == 0)
        {
            lone = request;
            return;
        }
        if (lone != null)
        {
            final RecvRequest first = lone;
            lone = null;
            queue(first);
        }
        queue(request);
    }

    private void queue(final RecvRequest request)
    {
        queued++;
        if (isWildcard(request))
        {
            wildcards.add(request);
        }
        else
        {
            exact.add(request.source, request.tag, request);
        }
    }

    boolean isEmpty()
    {
        return lone == null && queued == 0;
    }

    /**
     * @return true if a receive posted for a message from {@code source} with {@code tag} is waiting.
     */
    boolean has(final int source, final int tag)
    {
        if (lone != null)
        {
            return lone.matches(source, tag);
        }
        return queued > 0 && (exact.peek(source, tag) != null || firstWildcard(source, tag) >= 0);
    }

    /**
     * @return the earliest posted receive that takes a message from {@code source} with {@code tag}, removed,
     * or null.
     */
    RecvRequest take(final int source, final int tag)
    {
        if (lone != null)
        {
            final RecvRequest only = lone;
            if (!only.matches(source, tag))
            {
                return null;
            }
            lone = null;
            return only;
        }
        if (queued == 0)
        {
            return null;
        }
        final RecvRequest taken = takeQueued(source, tag);
        if (taken != null)
        {
            queued--;
        }
        return taken;
    }

    private RecvRequest takeQueued(final int source, final int tag)
    {
        final RecvRequest named = exact.peek(source, tag);
        final int wildcard = firstWildcard(source, tag);
        if (wildcard >= 0 && (named == null || wildcards.get(wildcard).postNumber < named.postNumber))
        {
            return wildcards.remove(wildcard);
        }
        if (named != null)
        {
            exact.removeFirst(source, tag);
        }
        return named;
    }

    /**
     * Withdraws a receive that is still posted (one whose wait ended in an exception, or a cancel).
     *
     * @return true if it was posted.
     */
    boolean remove(final RecvRequest request)
    {
        if (lone == request)
        {
            lone = null;
            return true;
        }
        if (isWildcard(request) ? wildcards.remove(request) : exact.remove(request.source, request.tag, request))
        {
            queued--;
            return true;
        }
        return false;
    }

    /**
     * Fails the posted receives that only ranks in {@code gone} could satisfy: a receive for any source once
     * every other rank of its communicator is gone.
     *
     * @param self this rank (never gone).
     */
    void failOrphans(final boolean[] gone, final int self)
    {
        if (lone != null && orphaned(lone, gone, self))
        {
            lone = null;
        }
        try
        {
            exact.removeIf(recv -> orphaned(recv, gone, self));
            wildcards.removeIf(recv -> orphaned(recv, gone, self));
        }
        finally
        {
            // counted afresh: an abort found while failing them throws before removeIf removes what it tested
            queued = exact.count() + wildcards.size();
        }
    }

    /**
     * Fails {@code recv} if only ranks in {@code gone} could satisfy it.
     *
     * @return true if it failed.
     */
    private static boolean orphaned(final RecvRequest recv, final boolean[] gone, final int self)
    {
        final boolean any = recv.source == Communicator.ANY_SOURCE;
        return (any ? noSenderLeft(recv, gone, self) : gone[recv.source]) &&
            Request.orphan(recv, "receive from " + (any ? "any rank" : "rank " + recv.localRank(recv.source)));
    }

    /**
     * @return true if every rank of {@code recv}'s communicator but this one is gone: none can send it anything.
     */
    private static boolean noSenderLeft(final RecvRequest recv, final boolean[] gone, final int self)
    {
        boolean others = false;
        for (int peer = 0; peer < gone.length; peer++)
        {
            if (peer != self && recv.localRank(peer) >= 0)
            {
                if (!gone[peer])
                {
                    return false;
                }
                others = true;
            }
        }
        return others;
    }

    private int firstWildcard(final int source, final int tag)
    {
        for (int i = 0; i < wildcards.size(); i++)
        {
            if (wildcards.get(i).matches(source, tag))
            {
                return i;
            }
        }
        return -1;
    }

    private static boolean isWildcard(final RecvRequest request)
    {
        return request.source == Communicator.ANY_SOURCE || Contexts.isWildcard(request.tag);
    }
}
