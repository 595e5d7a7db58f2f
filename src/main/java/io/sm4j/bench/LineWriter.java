package io.sm4j.bench;

import java.io.Writer;
import java.util.function.Consumer;

/**
 * A writer that hands every complete line (without its newline) to a consumer: how {@code sm4j bench}
 * reads what the ranks print through the launcher.
 */
final class LineWriter extends Writer
{
    private final StringBuilder line = new StringBuilder();
    private final Consumer<String> consumer;

    LineWriter(final Consumer<String> consumer)
    {
        this.consumer = consumer;
    }

    @Override
    public synchronized void write(final char[] chars, final int offset, final int length)
    {
        for (int i = offset; i < offset + length; i++)
        {
            final char c = chars[i];
            if (c == '\n')
            {
                consumer.accept(line.toString());
                line.setLength(0);
            }
            else if (c != '\r')
            {
                line.append(c);
            }
        }
    }

    @Override
    public void flush()
    {
        // lines are handed over as they end
    }

    @Override
    public synchronized void close()
    {
        if (line.length() > 0)
        {
            consumer.accept(line.toString());
            line.setLength(0);
        }
    }
}
