package io.sm4j.segment;

/**
 * A setting (an {@code SM4J_*} environment variable, a transport option, a JVM flag) that is missing or
 * malformed. Its message names the setting, its value and what is expected; it carries no stack trace, so
 * a rank that lets it escape {@code main} prints one line: where it was thrown says nothing the message
 * does not.
 */
public final class BadSettingException extends IllegalArgumentException
{
    private static final long serialVersionUID = 1L;

    public BadSettingException(final String message)
    {
        super(message);
    }

    @Override
    public synchronized Throwable fillInStackTrace()
    {
        return this; // no frames: one line
    }
}
