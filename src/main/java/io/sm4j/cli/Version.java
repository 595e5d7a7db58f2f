package io.sm4j.cli;

import picocli.CommandLine.IVersionProvider;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The project version, filtered into {@code version.properties} by the build.
 */
public final class Version implements IVersionProvider
{
    private static final String VERSION = load();

    /**
     * @return e.g. {@code 0.1.0-SNAPSHOT}.
     */
    public static String text()
    {
        return VERSION;
    }

    @Override
    public String[] getVersion()
    {
        return new String[]{ "sm4j " + VERSION };
    }

    private static String load()
    {
        try (InputStream in = Version.class.getResourceAsStream("version.properties"))
        {
            final Properties properties = new Properties();
            if (in != null)
            {
                properties.load(in);
            }
            return properties.getProperty("version", "unknown");
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
