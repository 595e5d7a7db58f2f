package io.sm4j.message;

/**
 * The unexpected messages of one rank in arrival order, also binned by (source, tag) ({@link Bins}): a receive that names both takes its message from the head of one bin, in O(1) however many
 * messages wait; a wildcard receive scans in arrival order until the first it accepts. The earliest
 * message of a (source, tag) in arrival order is always the head of its bin, so either way the taken
 * message leaves both structures in O(1).
 */
final class UnexpectedQueue
{
    private static final class Node
    {
        final Unexpected message;
        Node prev;
        Node next;

        Node(final Unexpected message)
        {
            this.message = message;
        }
    }

    private final Bins<Node> bins = new Bins<>();
    private Node head;
    private Node tail;
    private long keptBytes;
    /**
     * Queued messages on a collective's tag, of any context, per source rank: while none from a source is,
     * {@link #firstCollective} answers for it without a scan.
     */
    private final int[] collectives;

    /**
     * @param size the ranks of the job: the sources whose messages may be queued.
     */
    UnexpectedQueue(final int size)
    {
        collectives = new int[size];
    }

    boolean isEmpty()
    {
        return head == null;
    }

    /**
     * @return heap bytes the queued messages keep.
     */
    long keptBytes()
    {
        return keptBytes;
    }

    void add(final Unexpected message)
    {
        final Node node = new Node(message);
        if (tail == null)
        {
            head = node;
        }
        else
        {
            tail.next = node;
            node.prev = tail;
        }
        tail = node;
        bins.add(message.source(), message.tag(), node);
        keptBytes += message.keptBytes();
        countCollective(message, 1);
    }

    /**
     * @return the earliest message a receive for ({@code source}, {@code tag}) accepts, or null.
     */
    Unexpected peek(final int source, final int tag)
    {
        final Node node = find(source, tag);
        return node == null ? null : node.message;
    }

    /**
     * @return the earliest message a receive for ({@code source}, {@code tag}) accepts, removed, or null.
     */
    Unexpected take(final int source, final int tag)
    {
        final Node node = find(source, tag);
        if (node == null)
        {
            return null;
        }
        bins.removeFirst(node.message.source(), node.message.tag()); // node is its bin's head
        if (node.prev == null)
        {
            head = node.next;
        }
        else
        {
            node.prev.next = node.next;
        }
        if (node.next == null)
        {
            tail = node.prev;
        }
        else
        {
            node.next.prev = node.prev;
        }
        keptBytes -= node.message.keptBytes();
        countCollective(node.message, -1);
        return node.message;
    }

    /**
     * @return the earliest message from {@code source} on one of {@code context}'s collectives' tags, or null.
     */
    Unexpected firstCollective(final int source, final int context)
    {
        if (collectives[source] == 0)
        {
            return null; // the common case: no scan
        }
        for (Node node = head; node != null; node = node.next)
        {
            if (node.message.source() == source && Contexts.collectiveContext(node.message.tag()) == context)
            {
                return node.message;
            }
        }
        return null;
    }

    /**
     * @return the queued messages in arrival order.
     */
    java.util.List<Unexpected> all()
    {
        final java.util.List<Unexpected> all = new java.util.ArrayList<>();
        for (Node node = head; node != null; node = node.next)
        {
            all.add(node.message);
        }
        return all;
    }

    private void countCollective(final Unexpected message, final int delta)
    {
        if (Contexts.collectiveContext(message.tag()) >= 0)
        {
            collectives[message.source()] += delta;
        }
    }

    private Node find(final int source, final int tag)
    {
        if (head == null)
        {
            return null; // the common case of a receive posted before its message: no lookup
        }
        if (source != Communicator.ANY_SOURCE && !Contexts.isWildcard(tag))
        {
            return bins.peek(source, tag);
        }
        for (Node node = head; node != null; node = node.next)
        {
            if (RecvRequest.accepts(source, tag, node.message.source(), node.message.tag()))
            {
                return node;
            }
        }
        return null;
    }
}
