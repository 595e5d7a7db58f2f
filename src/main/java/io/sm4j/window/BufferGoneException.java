package io.sm4j.window;

import io.sm4j.segment.Sm4jException;

/**
 * A peer's shared buffer that a message or a window names is gone: its owner freed it (with a send from it
 * still pending, which MPI calls erroneous), or left the job. The receive that needed it fails; nothing else.
 */
public final class BufferGoneException extends Sm4jException
{
    private static final long serialVersionUID = 1L;

    BufferGoneException(final String message)
    {
        super(message);
    }
}
