package io.sm4j.segment;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.lang.module.ModuleFinder;
import java.util.List;
import java.util.Optional;

/**
 * Calls into the C library through JDK 17's incubating foreign linker (module {@code jdk.incubator.foreign}, whose
 * API JDK 18 changed and JDK 19 replaced by {@code java.lang.foreign}, {@link Downcalls}' way on JDK 22+), by
 * reflection, from code compiled for JDK 17 without the module: a JVM that resolved it ({@link #FLAG}, which
 * {@code sm4j run} gives the ranks it starts on JDK 17) can then make the system calls JDK 17 has no Java API for.
 * Such a JVM prints {@link #WARNING} once at its start, which {@code sm4j run} does not pass on.
 */
public final class IncubatorLinker
{
    /** The JVM flag that resolves the module (one token). */
    public static final String FLAG = "--add-modules=jdk.incubator.foreign";
    /** What a JDK 17 JVM given {@link #FLAG} prints on its standard error as it starts. */
    public static final String WARNING = "WARNING: Using incubator modules: jdk.incubator.foreign";
    private static final String MODULE = "jdk.incubator.foreign";

    private IncubatorLinker()
    {
    }

    /**
     * @return true if a JVM of this JDK can use this linker once given {@link #FLAG}: JDK 17 with the module in its
     *         image (a trimmed runtime may lack it, and a JVM told to resolve a module it lacks does not start).
     */
    public static boolean forThisJdk()
    {
        return Runtime.version().feature() == 17 && ModuleFinder.ofSystem().find(MODULE).isPresent();
    }

    /**
     * @param jvmArgs a JVM's other options.
     * @return true if that JVM, of this JDK, is to be given {@link #FLAG}: {@link #forThisJdk()}, and its options
     *         do not limit the modules it may resolve ({@code --limit-modules}).
     */
    public static boolean forJvm(final List<String> jvmArgs)
    {
        return forThisJdk() && jvmArgs.stream().noneMatch(arg -> arg.startsWith("--limit-modules"));
    }

    /**
     * Builds {@code CLinker.getInstance().downcallHandle(symbol, type, FunctionDescriptor.of(layouts[0],
     * layouts[1..]))} of JDK 17.
     *
     * @param layouts names of {@code CLinker}'s layout constants ({@code "C_LONG"}, {@code "C_INT"}): the
     *                return's, then the arguments'.
     * @return the handle, or empty if this JVM is not a JDK 17 that resolved the module, or the C library has no
     *         such symbol.
     * @throws ReflectiveOperationException if the API is not as expected.
     */
    public static Optional<MethodHandle> link(final String symbol, final MethodType type, final String[] layouts)
        throws ReflectiveOperationException
    {
        if (!forThisJdk() || ModuleLayer.boot().findModule(MODULE).isEmpty())
        {
            return Optional.empty();
        }
        final Class<?> linkerType = Class.forName(MODULE + ".CLinker");
        final Class<?> layoutType = Class.forName(MODULE + ".MemoryLayout");
        final Class<?> descriptorType = Class.forName(MODULE + ".FunctionDescriptor");
        final Object lookup = linkerType.getMethod("systemLookup").invoke(null);
        final Optional<?> found = (Optional<?>)Class.forName(MODULE + ".SymbolLookup")
            .getMethod("lookup", String.class).invoke(lookup, symbol);
        if (found.isEmpty())
        {
            return Optional.empty();
        }
        final Object descriptor = Downcalls.functionDescriptor(descriptorType, layoutType, linkerType, layouts);
        final Object linker = linkerType.getMethod("getInstance").invoke(null);
        return Optional.of((MethodHandle)linkerType
            .getMethod("downcallHandle", Class.forName(MODULE + ".Addressable"), MethodType.class, descriptorType)
            .invoke(linker, found.get(), type, descriptor));
    }
}
