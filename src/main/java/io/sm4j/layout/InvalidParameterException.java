package io.sm4j.layout;

/**
 * A layout parameter out of its range. The message reads {@code name=value (expected: ...)}; the parts are
 * kept so a front end can name the parameter its own way (the CLI names the flag the user typed).
 */
public final class InvalidParameterException extends IllegalArgumentException
{
    private static final long serialVersionUID = 1L;

    private final String parameter;
    private final String value;
    private final String expected;

    /**
     * @param parameter the {@link LayoutParams} component, e.g. {@code queueEntries}.
     * @param value     the rejected value, as text.
     * @param expected  what it must be, e.g. {@code a power of two}.
     */
    public InvalidParameterException(final String parameter, final String value, final String expected)
    {
        super(parameter + "=" + value + " (expected: " + expected + ")");
        this.parameter = parameter;
        this.value = value;
        this.expected = expected;
    }

    /**
     * @return the {@link LayoutParams} component name.
     */
    public String parameter()
    {
        return parameter;
    }

    /**
     * @return the rejected value, as text.
     */
    public String value()
    {
        return value;
    }

    /**
     * @return what the value must be.
     */
    public String expected()
    {
        return expected;
    }
}
