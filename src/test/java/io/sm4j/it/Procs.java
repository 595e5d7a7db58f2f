package io.sm4j.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Other processes as the multi-JVM tests handle them: signals through kill(1), fields of /proc/PID/stat.
 */
public final class Procs
{
    private Procs()
    {
    }

    /**
     * Sends {@code signal} (e.g. "-KILL") to {@code targets} (pids, or "-PGID" for a process group).
     *
     * @throws IllegalStateException if kill(1) failed.
     */
    static void signal(final String signal, final String... targets) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>(List.of("kill", signal, "--"));
        command.addAll(List.of(targets));
        final int code = new ProcessBuilder(command).inheritIO().start().waitFor();
        if (code != 0)
        {
            throw new IllegalStateException(String.join(" ", command) + " exited with " + code);
        }
    }

    /**
     * @param field counted from the state, the first field after the command in parentheses (which may itself
     *              hold ')' and spaces): 0 the state, 2 the process group.
     * @return that field of /proc/PID/stat.
     */
    public static String statField(final long pid, final int field) throws IOException
    {
        final String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        return stat.substring(stat.lastIndexOf(')') + 2).split(" ")[field];
    }
}
