package io.sm4j.message;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a rank closes with that no receive took: one line on stderr grouping the messages by (source,
 * tag), so that a message sent and never received does not vanish in silence.
 */
final class LeftOver
{
    /** Groups named before "and N more". */
    private static final int GROUPS_SHOWN = 8;

    private LeftOver()
    {
    }

    /**
     * @return the line for {@code messages}, or null if there are none.
     */
    static String describe(final int rank, final List<Unexpected> messages)
    {
        if (messages.isEmpty())
        {
            return null;
        }
        final Map<String, long[]> groups = new LinkedHashMap<>(); // "rank S tag T" -> {count, bytes}
        for (final Unexpected message : messages)
        {
            final long[] group = groups.computeIfAbsent("rank " + message.source() + " tag " + message.tag(), key -> new long[2]);
            group[0]++;
            group[1] += message.total();
        }
        final StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
            "sm4j: rank %d closed with %d message%s no receive took (lost):", rank, messages.size(),
            messages.size() == 1 ? "" : "s"));
        int shown = 0;
        for (final Map.Entry<String, long[]> group : groups.entrySet())
        {
            if (shown++ == GROUPS_SHOWN)
            {
                line.append(" and ").append(groups.size() - GROUPS_SHOWN).append(" more (source, tag) pairs");
                break;
            }
            line.append(shown == 1 ? " " : "; ").append(String.format(Locale.ROOT, "from %s, %d message%s, %,d bytes",
                group.getKey(), group.getValue()[0], group.getValue()[0] == 1 ? "" : "s", group.getValue()[1]));
        }
        return line.toString();
    }
}
