package io.sm4j.job;

import io.sm4j.segment.BadSettingException;

import java.util.Locale;
import java.util.Map;

/**
 * Reads sm4j's environment variables, with errors that name the variable and its value
 * ({@link BadSettingException}: one line).
 */
public final class Environment
{
    private Environment()
    {
    }

    /**
     * @return true if {@code name} has a value: an optional setting left empty ({@code SM4J_IDLE= cmd}) is unset, as
     *         a shell's {@code ${VAR:-default}} takes it.
     */
    public static boolean isSet(final Map<String, String> env, final String name)
    {
        final String value = env.get(name);
        return value != null && !value.isBlank();
    }

    public static String require(final Map<String, String> env, final String name)
    {
        final String value = env.get(name);
        if (value == null || value.isBlank())
        {
            throw new BadSettingException(name + " is not set: start ranks with 'sm4j run -n N -- <main class>'");
        }
        return value;
    }

    public static long longValue(final Map<String, String> env, final String name)
    {
        final String value = require(env, name);
        try
        {
            return Long.parseLong(value.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new BadSettingException(name + "=" + value + " is not an integer");
        }
    }

    public static int intValue(final Map<String, String> env, final String name)
    {
        final long value = longValue(env, name);
        if (value != (int)value)
        {
            throw new BadSettingException(name + "=" + value + " is out of range");
        }
        return (int)value;
    }

    public static int intValue(final Map<String, String> env, final String name, final int otherwise)
    {
        return isSet(env, name) ? intValue(env, name) : otherwise;
    }

    public static long longValue(final Map<String, String> env, final String name, final long otherwise)
    {
        return isSet(env, name) ? longValue(env, name) : otherwise;
    }

    public static <E extends Enum<E>> E enumValue(final Map<String, String> env, final String name, final E otherwise)
    {
        if (!isSet(env, name))
        {
            return otherwise;
        }
        final String value = require(env, name);
        try
        {
            return Enum.valueOf(otherwise.getDeclaringClass(), value.trim().toUpperCase(Locale.ROOT));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new BadSettingException(name + "=" + value + " is not one of " +
                java.util.Arrays.toString(otherwise.getDeclaringClass().getEnumConstants()).toLowerCase(Locale.ROOT));
        }
    }
}
