package io.sm4j.segment;

import java.lang.invoke.MethodHandle;
import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.util.Optional;

/**
 * Calls into the C library through the Foreign Function and Memory API of JDK 22 and later, from code compiled
 * for JDK 17, which has no such API: a downcall is built by reflection, as a method handle of primitive types
 * only (a pointer passed as a {@code long}, which the x86-64 and AArch64 calling conventions pass alike), and
 * called with {@code invokeExact}, which needs no class of the API at compile time.
 */
public final class Downcalls
{
    private Downcalls()
    {
    }

    /**
     * @param ofThisJvm also whether this JVM was started with native access (a JVM that sm4j starts is).
     * @return why this JVM (or a JVM of the same JDK started by sm4j) cannot make a downcall, or null if it can.
     */
    public static String unavailableReason(final boolean ofThisJvm)
    {
        if (Runtime.version().feature() < 22)
        {
            return "JDK " + Runtime.version().feature() + " has no foreign function API, JDK 22+ has";
        }
        return !ofThisJvm || nativeAccess() ? null : "native access is not enabled: add --enable-native-access=ALL-UNNAMED";
    }

    /**
     * Builds {@code Linker.nativeLinker().downcallHandle(symbol, FunctionDescriptor.of(layouts[0], layouts[1..]),
     * Linker.Option.<option>(optionArgument))}.
     *
     * @param layouts        names of {@code ValueLayout} constants ({@code "JAVA_LONG"}, {@code "JAVA_INT"}):
     *                       the return's, then the arguments'.
     * @param option         a factory of {@code Linker.Option}: {@code "firstVariadicArg"} (an int) or
     *                       {@code "critical"} (a boolean).
     * @param optionArgument its argument.
     * @return the handle, or empty if the C library has no such symbol.
     * @throws ReflectiveOperationException if the API is not there or not as expected.
     */
    public static Optional<MethodHandle> link(
        final String symbol, final String[] layouts, final String option, final Object optionArgument)
        throws ReflectiveOperationException
    {
        final Class<?> linkerType = Class.forName("java.lang.foreign.Linker");
        final Class<?> layoutType = Class.forName("java.lang.foreign.MemoryLayout");
        final Class<?> valueLayout = Class.forName("java.lang.foreign.ValueLayout");
        final Class<?> descriptorType = Class.forName("java.lang.foreign.FunctionDescriptor");
        final Class<?> optionType = Class.forName("java.lang.foreign.Linker$Option");

        final Object linker = linkerType.getMethod("nativeLinker").invoke(null);
        final Object lookup = linkerType.getMethod("defaultLookup").invoke(linker);
        final Optional<?> found = (Optional<?>)Class.forName("java.lang.foreign.SymbolLookup")
            .getMethod("find", String.class).invoke(lookup, symbol);
        if (found.isEmpty())
        {
            return Optional.empty();
        }
        final Object descriptor = functionDescriptor(descriptorType, layoutType, valueLayout, layouts);
        final Object options = Array.newInstance(optionType, 1);
        final Class<?> argumentType = optionArgument instanceof Integer ? int.class : boolean.class;
        Array.set(options, 0, optionType.getMethod(option, argumentType).invoke(null, optionArgument));
        return Optional.of((MethodHandle)linkerType
            .getMethod("downcallHandle", Class.forName("java.lang.foreign.MemorySegment"), descriptorType, options.getClass())
            .invoke(linker, found.get(), descriptor, options));
    }

    /**
     * @param constants the class whose static fields are the layouts named ({@code ValueLayout} of JDK 22+,
     *                  {@code CLinker} of JDK 17's incubating API).
     * @return {@code FunctionDescriptor.of(layouts[0], layouts[1..])} of {@code descriptorType}'s API.
     */
    static Object functionDescriptor(
        final Class<?> descriptorType, final Class<?> layoutType, final Class<?> constants, final String[] layouts)
        throws ReflectiveOperationException
    {
        final Object arguments = Array.newInstance(layoutType, layouts.length - 1);
        for (int i = 1; i < layouts.length; i++)
        {
            Array.set(arguments, i - 1, constants.getField(layouts[i]).get(null));
        }
        return descriptorType.getMethod("of", layoutType, arguments.getClass())
            .invoke(null, constants.getField(layouts[0]).get(null), arguments);
    }

    private static boolean nativeAccess()
    {
        try
        {
            final Method enabled = Module.class.getMethod("isNativeAccessEnabled");
            return (boolean)enabled.invoke(Downcalls.class.getModule());
        }
        catch (final ReflectiveOperationException | RuntimeException ex)
        {
            return false;
        }
    }
}
