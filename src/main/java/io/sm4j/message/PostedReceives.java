package io.sm4j.message;

import java.util.ArrayList;

/**
 * The receives of one rank posted and not yet matched. A receive that names its source and tag waits in the
 * bin of that pair ({@link Bins}), a wildcard one in a list of its own; each carries its post number, so
 * an arriving message takes the earliest posted receive that accepts it: the head of its bin or the first
 * wildcard receive that accepts it, whichever was posted first. The common case, no wildcards, is O(1).
 */
final class PostedReceives
{
    private final Bins<RecvRequest> exact = new Bins<>();
    private final ArrayList<RecvRequest> wildcards = new ArrayList<>();
    private long nextPostNumber;

    void add(final RecvRequest request)
    {
        request.postNumber = nextPostNumber++;
        if (isWildcard(request))
        {
            wildcards.add(request);
        }
        else
        {
            exact.add(request.source, request.tag, request);
        }
    }

    /**
     * @return true if a receive posted for a message from {@code source} with {@code tag} is waiting.
     */
    boolean has(final int source, final int tag)
    {
        return exact.peek(source, tag) != null || firstWildcard(source, tag) >= 0;
    }

    /**
     * @return the earliest posted receive that takes a message from {@code source} with {@code tag}, removed,
     * or null.
     */
    RecvRequest take(final int source, final int tag)
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
     * Withdraws a receive that is still posted (one whose wait ended in an exception).
     */
    void remove(final RecvRequest request)
    {
        if (isWildcard(request))
        {
            wildcards.remove(request);
        }
        else
        {
            exact.remove(request.source, request.tag, request);
        }
    }

    /**
     * Fails the posted receives that only ranks in {@code gone} could satisfy.
     */
    void failOrphans(final boolean[] gone, final boolean everyoneGone)
    {
        exact.removeIf(recv -> gone[recv.source] && Request.orphan(recv, "receive from rank " + recv.source));
        wildcards.removeIf(recv -> (recv.source == Communicator.ANY_SOURCE ? everyoneGone : gone[recv.source]) &&
            Request.orphan(recv, "receive from " + (recv.source == Communicator.ANY_SOURCE ? "any rank" : "rank " + recv.source)));
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
        return request.source == Communicator.ANY_SOURCE || request.tag == Communicator.ANY_TAG;
    }
}
