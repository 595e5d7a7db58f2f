package io.sm4j.segment;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * Checks, before sm4j touches a file, that this JVM lets Agrona reach {@code jdk.internal.misc.Unsafe}:
 * without the flag Agrona's first buffer fails with a long {@link IllegalAccessError} that names neither
 * sm4j nor the fix, after a file may already have been created.
 */
public final class JvmAccess
{
    /** The JVM flag every process that maps a segment needs. */
    public static final String FLAG = "--add-opens java.base/jdk.internal.misc=ALL-UNNAMED";
    /**
     * The JVM flag that lets a rank on JDK 22+ sleep on a futex instead of a socket (accepted, and unused,
     * by JDK 17): sm4j's launchers add it.
     */
    public static final String NATIVE_ACCESS_FLAG = "--enable-native-access=ALL-UNNAMED";

    /** Set once the check passed: the modules' exports do not change at run time for this package. */
    private static volatile boolean granted;

    private JvmAccess()
    {
    }

    /**
     * @throws BadSettingException (one line) saying which flag to add, and where, if the JVM lacks it.
     */
    public static void require()
    {
        if (granted)
        {
            return;
        }
        // a class literal loads UnsafeBuffer without initialising it (nor Agrona's Unsafe access)
        if (!Object.class.getModule().isExported("jdk.internal.misc", UnsafeBuffer.class.getModule()))
        {
            throw new BadSettingException("sm4j needs the JVM flag " + FLAG + " (Agrona uses jdk.internal.misc.Unsafe): " +
                "add it to the java command line, to Maven surefire's <argLine>, or to Gradle's jvmArgs; sm4j run and " +
                "bin/sm4j add it to the JVMs they start");
        }
        granted = true;
    }
}
