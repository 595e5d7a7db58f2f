package io.sm4j.segment;

/**
 * The directory has no room for a file sm4j would make there (a segment, a shared buffer): the message says
 * how much was needed, how much is free, and what to do.
 */
public final class NoSpaceException extends Sm4jException
{
    private static final long serialVersionUID = 1L;

    NoSpaceException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
