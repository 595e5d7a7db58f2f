package io.sm4j.launch;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Finds programs the tools may use (taskset, mpicc, mpirun) without running them.
 */
public final class Executables
{
    private Executables()
    {
    }

    /**
     * @return true if an executable file named {@code tool} is in a directory of the PATH.
     */
    public static boolean onPath(final String tool)
    {
        final String path = System.getenv("PATH");
        return path != null && Arrays.stream(path.split(File.pathSeparator)).anyMatch(dir -> Files.isExecutable(Path.of(dir, tool)));
    }
}
