package io.sm4j.it;

import com.sun.jdi.Bootstrap;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.connect.AttachingConnector;
import com.sun.jdi.connect.Connector;
import io.sm4j.cli.Sm4jCli;
import io.sm4j.launch.JobLauncher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A rank frozen inside an sm4j wait while its process runs (issue 21, item 7): a Java debugger suspends
 * every thread of rank 1 through JDWP, which leaves the process in state S (not the T that SIGSTOP gives),
 * so only its stopped heartbeat tells. The launcher must name it after 2 s and, with {@code --stopped-limit
 * 4}, abort the job after 4 s, leaving no file.
 */
class FrozenRankTest
{
    private static final Pattern PORT = Pattern.compile("\\[1] Listening for transport dt_socket at address: (\\d+)");

    @Test
    @Timeout(180)
    void aRankSuspendedByAJavaDebuggerShouldBeNamedAndAbortTheJobAtTheStoppedLimit() throws Exception
    {
        try (ScratchDir dir = ScratchDir.create("sm4j-frozen-"))
        {
            final Path log = Files.createTempFile("sm4j-frozen-", ".log");
            final List<String> command = new ArrayList<>(List.of(Sm4jCli.class.getName(), "run", "-n", "2", "--dir",
                dir.path.toString(), "--stopped-limit", "4", "--grace", "1000",
                "--jvm-arg=-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=127.0.0.1:0",
                "--", FailureApp.class.getName(), "wait"));
            final Process launcher = new ProcessBuilder(
                JobLauncher.javaCommand(System.getProperty("java.class.path"), List.of("-Xmx256m"), command))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            VirtualMachine debugger = null;
            try
            {
                final String output = awaitWaiting(log, launcher);
                final Matcher port = PORT.matcher(output);
                assertTrue(port.find(), output);
                final long pid = WaitingRanks.in(output).stream().mapToLong(ProcessHandle::pid)
                    .filter(p -> output.contains("[1] rank 1 pid " + p + " waiting")).findFirst().orElseThrow();
                debugger = attach(port.group(1));
                debugger.suspend(); // every thread of rank 1, inside its wait: the process itself runs on
                assertTrue(launcher.waitFor(90, TimeUnit.SECONDS), "launcher ended");
                final String all = Files.readString(log);
                assertEquals(JobLauncher.STOPPED, launcher.exitValue(), all);
                assertTrue(all.matches("(?s).*sm4j run: rank 1 \\(pid " + pid + "\\) has been frozen for 2\\.\\d s inside an " +
                    "sm4j wait: its heartbeat stopped while its process runs \\(a Java debugger that suspended it, a long GC " +
                    "pause, or a machine too busy to run it\\): the ranks that wait for it wait too; the job is aborted after " +
                    "4 s\n.*"), all);
                assertTrue(all.matches("(?s).*sm4j run: rank 1 \\(pid " + pid + "\\) was frozen for 4\\.\\d s \\(--stopped-limit " +
                    "4\\); aborting the job\n.*"), all);
                assertFalse(Pattern.compile("rank 0 \\(pid \\d+\\) has been").matcher(all).find(),
                    "rank 0 waits and beats: it is not frozen\n" + all);
                assertTrue(dir.isEmpty(), "files left behind");
            }
            finally
            {
                launcher.destroyForcibly();
                if (debugger != null)
                {
                    try
                    {
                        debugger.dispose();
                    }
                    catch (final RuntimeException gone)
                    {
                        // the rank was killed by the launcher: the connection is gone with it
                    }
                }
                Files.deleteIfExists(log);
            }
        }
    }

    private static String awaitWaiting(final Path log, final Process launcher) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        String output = Files.readString(log);
        while (WaitingRanks.in(output).size() < 2 || !PORT.matcher(output).find())
        {
            assertTrue(launcher.isAlive() && System.nanoTime() < deadline, "ranks did not all wait: " + output);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5)); // a poll of the file, not a wait for time
            output = Files.readString(log);
        }
        return output;
    }

    private static VirtualMachine attach(final String port) throws Exception
    {
        final AttachingConnector socket = Bootstrap.virtualMachineManager().attachingConnectors().stream()
            .filter(connector -> connector.name().equals("com.sun.jdi.SocketAttach")).findFirst().orElseThrow();
        final Map<String, Connector.Argument> arguments = socket.defaultArguments();
        arguments.get("hostname").setValue("127.0.0.1");
        arguments.get("port").setValue(port);
        return socket.attach(arguments);
    }
}
