package io.sm4j.path;

import com.sun.jdi.Bootstrap;
import com.sun.jdi.IntegerValue;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.connect.Connector;
import com.sun.jdi.connect.LaunchingConnector;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.ClassPrepareEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.MethodEntryEvent;
import com.sun.jdi.event.VMDeathEvent;
import com.sun.jdi.event.VMDisconnectEvent;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.ClassPrepareRequest;
import com.sun.jdi.request.EventRequest;
import com.sun.jdi.request.MethodEntryRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 20's measure of the hot path's width: the sm4j classes whose methods run while one blocking 8-byte
 * message goes from {@code send} on one rank to {@code recv} on the other, steady state (the path warmed by
 * 20,000 round trips), counted exactly by a debugger's method-entry events in a JVM of its own
 * ({@link PathTraceApp}), on both ranks' threads.
 */
class PathTraceTest
{
    /** Where the path stands (docs/transport.md, "Progress: one engine"); issue 20 asks for 12. */
    private static final int MAX_CLASSES = 25;
    /**
     * Entered only when a rank's periodic health check runs (every 100 ms), which a traced window may hold
     * by chance: that check is not the message's path, so such a trace is taken again.
     */
    private static final String HEALTH_TICK = "segment.RankRegistry.heartbeat";
    private static final int TRACES = 3;

    @Test
    @Timeout(120)
    void oneBlockingSmallMessageShouldRunInFewClasses() throws Exception
    {
        Map<String, TreeSet<String>> classesByThread = null;
        for (int i = 0; i < TRACES && classesByThread == null; i++)
        {
            classesByThread = trace();
        }
        assertTrue(classesByThread != null, "a health check ran inside each of " + TRACES + " traced windows");
        final TreeSet<String> all = new TreeSet<>();
        classesByThread.values().forEach(all::addAll);
        final StringBuilder listing = new StringBuilder();
        classesByThread.forEach((thread, classes) -> listing.append(thread).append(" (").append(classes.size())
            .append("): ").append(classes).append('\n'));
        System.out.println("classes on the path of one blocking 8 B send -> recv: " + all.size() + "\n" + listing);
        assertTrue(all.size() >= 2, "the trace saw no sm4j class: " + listing);
        assertTrue(all.size() <= MAX_CLASSES, all.size() + " classes on the path, more than " + MAX_CLASSES + ":\n" + listing);
        assertTrue(all.contains("message.DirectReceive"), "the receive looked at its source first:\n" + listing);
    }

    /**
     * @return the sm4j classes entered on each rank's thread, or null if a health check ran in the window.
     */
    static Map<String, TreeSet<String>> trace() throws Exception
    {
        final LaunchingConnector connector = Bootstrap.virtualMachineManager().defaultConnector();
        final Map<String, Connector.Argument> arguments = connector.defaultArguments();
        arguments.get("main").setValue(PathTraceApp.class.getName());
        arguments.get("options").setValue("-cp " + System.getProperty("java.class.path")
            + " --add-opens java.base/jdk.internal.misc=ALL-UNNAMED");
        final VirtualMachine vm = connector.launch(arguments);
        final Map<String, TreeSet<String>> classesByThread = new TreeMap<>();
        boolean healthTick = false;
        try
        {
            final ClassPrepareRequest prepare = vm.eventRequestManager().createClassPrepareRequest();
            prepare.addClassFilter(PathTraceApp.class.getName());
            prepare.enable();
            MethodEntryRequest entries = null;
            vm.resume();
            while (true)
            {
                final EventSet events = vm.eventQueue().remove();
                for (final Event event : events)
                {
                    if (event instanceof ClassPrepareEvent)
                    {
                        final ReferenceType app = ((ClassPrepareEvent)event).referenceType();
                        final BreakpointRequest breakpoint = vm.eventRequestManager()
                            .createBreakpointRequest(app.methodsByName("mark").get(0).location());
                        breakpoint.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
                        breakpoint.enable();
                    }
                    else if (event instanceof BreakpointEvent)
                    {
                        final BreakpointEvent hit = (BreakpointEvent)event;
                        final int phase = ((IntegerValue)hit.thread().frame(0).getArgumentValues().get(0)).value();
                        if (phase == 1)
                        {
                            entries = vm.eventRequestManager().createMethodEntryRequest();
                            entries.addClassFilter("io.sm4j.*");
                            entries.addClassExclusionFilter(PathTraceApp.class.getName() + "*");
                            entries.setSuspendPolicy(EventRequest.SUSPEND_NONE);
                            entries.enable();
                        }
                        else if (entries != null)
                        {
                            entries.disable();
                            entries = null;
                        }
                    }
                    else if (event instanceof MethodEntryEvent && entries != null)
                    {
                        final MethodEntryEvent entry = (MethodEntryEvent)event;
                        final String thread = entry.thread().name();
                        if (thread.startsWith("sm4j-rank-"))
                        {
                            final String type = entry.method().declaringType().name().replace("io.sm4j.", "");
                            final String method = type + "." + entry.method().name();
                            classesByThread.computeIfAbsent(thread, t -> new TreeSet<>()).add(type);
                            healthTick |= method.equals(HEALTH_TICK);
                            if (System.getenv("SM4J_TRACE_METHODS") != null)
                            {
                                System.out.println(thread + " " + method);
                            }
                        }
                    }
                    else if (event instanceof VMDeathEvent || event instanceof VMDisconnectEvent)
                    {
                        return healthTick ? null : classesByThread;
                    }
                }
                events.resume();
            }
        }
        finally
        {
            try
            {
                vm.dispose();
            }
            catch (final RuntimeException alreadyGone)
            {
                // the debuggee has exited, which is how a trace normally ends
            }
        }
    }
}
