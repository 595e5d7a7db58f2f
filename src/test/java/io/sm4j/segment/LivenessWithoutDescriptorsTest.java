package io.sm4j.segment;

import io.sm4j.launch.JobLauncher;
import io.sm4j.layout.ControlBlockDescriptor;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

import java.io.FileInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A process that has run out of file descriptors cannot open {@code /proc/PID/stat}, and the JDK's own lookup
 * ({@link ProcessHandle#of}) reads that file: it then finds no process. A live peer, a live launcher or a live
 * job's creator must not read as dead for that (the health check would abort a sound job, {@code sm4j clean}
 * would remove a live job's files); a dead one must still read as dead. Checked in a JVM of its own whose
 * descriptors are limited ({@code ulimit -n}) and used up before it asks.
 */
class LivenessWithoutDescriptorsTest
{
    @Test
    @Timeout(60)
    @EnabledOnOs(OS.LINUX) // /proc and ulimit
    void aLiveProcessShouldNotReadAsDeadToARankWithoutFileDescriptors() throws Exception
    {
        final Process sleeper = new ProcessBuilder("sleep", "60").start();
        final ProcessIdentity exited = ProcessIdentity.of(sleeper.toHandle()); // with its start time, as a rank records it
        sleeper.destroyForcibly();
        assertTrue(sleeper.waitFor(10, TimeUnit.SECONDS)); // reaped: /proc no longer lists it
        final long live = ProcessHandle.current().pid();
        final List<String> command = new ArrayList<>(List.of("bash", "-c", "ulimit -n 64 && exec \"$@\"", "bash"));
        // -XX:-MaxFDLimit: the JVM would otherwise raise its soft limit to the hard one
        command.addAll(JobLauncher.javaCommand(System.getProperty("java.class.path"), List.of("-XX:-MaxFDLimit"),
            List.of(Probe.class.getName(), Long.toString(live), Long.toString(ProcessIdentity.current().startTicks()),
                Long.toString(exited.pid()), Long.toString(exited.startTicks()))));
        final Process probe = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(probe.waitFor(30, TimeUnit.SECONDS), output);
        assertEquals(0, probe.exitValue(), output);
        assertTrue(output.contains("descriptors used up"), "the probe never ran out of descriptors: " + output);
        assertTrue(output.contains("identity alive=true"), output);
        assertTrue(output.contains("watched running=true"), output);
        assertTrue(output.contains("exited alive=false"), output);
        assertTrue(output.contains("registry live=1"), output);
    }

    /**
     * Uses up its descriptors, then asks whether {@code args[0]} (started at {@code args[1]} ticks) and
     * {@code args[2]} (started at {@code args[3]}, exited) are alive.
     */
    public static final class Probe
    {
        public static void main(final String[] args) throws IOException
        {
            final ProcessIdentity live = new ProcessIdentity(Long.parseLong(args[0]), Long.parseLong(args[1]));
            final ProcessHandle handle = ProcessHandle.of(live.pid()).orElseThrow(); // looked up while descriptors remain
            final ProcessIdentity exited = new ProcessIdentity(Long.parseLong(args[2]), Long.parseLong(args[3]));
            // every class the questions load, loaded while descriptors remain (a class file takes one to read)
            System.out.println("with descriptors: " + live.isAlive() + " " + exited.isAlive() + " " + watchedRunning(handle) +
                " " + registry(live, exited).liveCount());
            final List<FileInputStream> held = new ArrayList<>();
            try
            {
                while (true)
                {
                    held.add(new FileInputStream("/dev/null"));
                }
            }
            catch (final IOException usedUp)
            {
                System.out.println("descriptors used up after " + held.size() + ": " + usedUp.getMessage());
            }
            // a registry that looks its ranks up now, as a rank's health check does for a neighbour it has not watched yet
            final int registryLive = registry(live, exited).liveCount();
            final boolean identityAlive = live.isAlive();
            final boolean exitedAlive = exited.isAlive();
            final boolean watchedRunning = watchedRunning(handle);
            for (final FileInputStream stream : held)
            {
                stream.close();
            }
            System.out.println("identity alive=" + identityAlive);
            System.out.println("watched running=" + watchedRunning);
            System.out.println("exited alive=" + exitedAlive);
            System.out.println("registry live=" + registryLive);
        }

        /**
         * @return a registry of two ranks attached as {@code live} and {@code exited}.
         */
        private static RankRegistry registry(final ProcessIdentity live, final ProcessIdentity exited)
        {
            final UnsafeBuffer[] controls = new UnsafeBuffer[2];
            final ProcessIdentity[] ranks = {live, exited};
            for (int rank = 0; rank < 2; rank++)
            {
                controls[rank] = new UnsafeBuffer(ByteBuffer.allocateDirect(ControlBlockDescriptor.OWNER_LENGTH));
                controls[rank].putLong(ControlBlockDescriptor.PID_OFFSET, ranks[rank].pid());
                controls[rank].putLong(ControlBlockDescriptor.START_OFFSET, ranks[rank].startTicks());
                controls[rank].putInt(ControlBlockDescriptor.STATE_OFFSET, ControlBlockDescriptor.STATE_ATTACHED);
            }
            return new RankRegistry("probe", controls);
        }

        private static boolean watchedRunning(final ProcessHandle handle)
        {
            try (WatchedProcess watched = WatchedProcess.of(handle))
            {
                return watched.isRunning();
            }
        }
    }
}
