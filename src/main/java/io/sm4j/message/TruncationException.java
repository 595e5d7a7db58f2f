package io.sm4j.message;

import io.sm4j.segment.Sm4jException;

/**
 * A message was longer than the receive buffer; the message is discarded.
 */
public final class TruncationException extends Sm4jException
{
    private static final long serialVersionUID = 1L;

    TruncationException(final int source, final int tag, final long length, final int capacity)
    {
        super("message of " + length + " bytes from rank " + source + " (tag " + tag + ") truncated: the receive buffer holds " +
            capacity + " bytes");
    }
}
