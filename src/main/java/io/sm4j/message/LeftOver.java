package io.sm4j.message;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a rank closes with that never reached a receive: one line on stderr grouping the messages by (peer,
 * tag), so that a message sent and never received does not vanish in silence. The receiver names what
 * arrived and no receive took; the sender names its sends that failed because their receiver left first.
 */
final class LeftOver
{
    /** Groups named before "and N more". */
    private static final int GROUPS_SHOWN = 8;

    /**
     * One message.
     *
     * @param peer  the rank it came from (receiver) or went to (sender).
     * @param tag   its tag.
     * @param bytes its length.
     */
    record Message(int peer, int tag, long bytes)
    {
    }

    private LeftOver()
    {
    }

    /**
     * @return the receiver's line for {@code messages} that arrived and no receive took, or null if none.
     */
    static String unreceived(final int rank, final List<Unexpected> messages)
    {
        return describe(rank, "no receive took (lost)", "from",
            messages.stream().map(message -> new Message(message.source(), message.tag(), message.total())).toList());
    }

    /**
     * @return the sender's line for {@code sends} whose receivers left without taking them, or null if none.
     */
    static String unsent(final int rank, final List<Message> sends)
    {
        return describe(rank, "that no receive took: their receivers closed first (lost)", "to", sends);
    }

    /**
     * @return the (peer, tag) group of a message with world rank {@code peer} and tag {@code wire} on the wire: the
     *         user's tag, and for a communicator made by split or dup which one (by its context; its own rank
     *         numbers are not known here, the communicator may be closed).
     */
    private static String name(final int peer, final int wire)
    {
        final int context = Contexts.userContext(wire);
        if (context == 0)
        {
            return "rank " + peer + " tag " + wire;
        }
        if (context < 0)
        {
            return "rank " + peer + " collective tag " + wire;
        }
        return "world rank " + peer + " tag " + Contexts.fromWire(context, wire) +
            " of the communicator of context " + context + " (made by split or dup)";
    }

    private static String describe(final int rank, final String what, final String direction, final List<Message> messages)
    {
        if (messages.isEmpty())
        {
            return null;
        }
        final Map<String, long[]> groups = new LinkedHashMap<>(); // "rank P tag T" -> {count, bytes}
        for (final Message message : messages)
        {
            final long[] group = groups.computeIfAbsent(name(message.peer(), message.tag()), key -> new long[2]);
            group[0]++;
            group[1] += message.bytes();
        }
        final StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
            "sm4j: rank %d closed with %d message%s %s:", rank, messages.size(), messages.size() == 1 ? "" : "s", what));
        int shown = 0;
        for (final Map.Entry<String, long[]> group : groups.entrySet())
        {
            if (shown++ == GROUPS_SHOWN)
            {
                line.append(" and ").append(groups.size() - GROUPS_SHOWN).append(" more (rank, tag) pairs");
                break;
            }
            line.append(shown == 1 ? " " : "; ").append(String.format(Locale.ROOT, "%s %s, %d message%s, %,d bytes",
                direction, group.getKey(), group.getValue()[0], group.getValue()[0] == 1 ? "" : "s", group.getValue()[1]));
        }
        return line.toString();
    }
}
