package io.sm4j.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * A fresh directory for a test's segment files: under /dev/shm when it is writable (where jobs really put
 * them), else under java.io.tmpdir. Closing deletes what is left in it, then the directory.
 */
public final class ScratchDir implements AutoCloseable
{
    public final Path path;

    private ScratchDir(final Path path)
    {
        this.path = path;
    }

    public static ScratchDir create(final String prefix) throws IOException
    {
        final Path shm = Path.of("/dev/shm");
        return new ScratchDir(Files.createTempDirectory(
            Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir")), prefix));
    }

    /**
     * @return true if no file is left in the directory.
     */
    public boolean isEmpty() throws IOException
    {
        try (Stream<Path> files = Files.list(path))
        {
            return files.findAny().isEmpty();
        }
    }

    @Override
    public void close() throws IOException
    {
        try (Stream<Path> files = Files.list(path))
        {
            files.forEach(file -> file.toFile().delete());
        }
        Files.delete(path);
    }
}
