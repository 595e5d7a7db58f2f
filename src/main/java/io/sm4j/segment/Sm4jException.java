package io.sm4j.segment;

/**
 * A cold-path failure: bad segment, bad parameters, timeout, or an aborted job.
 */
public class Sm4jException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    public Sm4jException(final String message)
    {
        super(message);
    }

    public Sm4jException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
