package io.sm4j.launch;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.Reader;
import java.nio.charset.StandardCharsets;

/**
 * Copies one output stream of a rank to the launcher's, each line prefixed with {@code [rank] }. Memory is
 * bounded whatever the rank prints: a line longer than {@link #MAX_LINE} characters (a rank printing a
 * 200 MiB line without a newline) is passed on in pieces of that length, each prefixed. A pump that fails
 * anyway says so, and the job then cannot end with 0 ({@link #failed()}).
 */
final class OutputPump implements Runnable
{
    /** Longest piece of a line passed on at once, in characters. */
    static final int MAX_LINE = 64 * 1024;

    private final Reader reader;
    private final PrintWriter sink;
    private final int rank;
    private final String name;
    /** A whole line not passed on the first time it comes (the JVM's own, caused by the launcher's flags), or null. */
    private String dropped;
    private final StringBuilder line = new StringBuilder();
    /** The last character ended a line with '\r': a '\n' right after it ends nothing more. */
    private boolean afterCarriageReturn;
    /** The line so far was passed on at {@link #MAX_LINE}: its end adds no empty piece. */
    private boolean split;
    private Thread thread;
    private volatile Throwable failure;

    private OutputPump(final InputStream stream, final PrintWriter sink, final int rank, final String name, final String dropped)
    {
        this.reader = new InputStreamReader(stream, StandardCharsets.UTF_8);
        this.sink = sink;
        this.rank = rank;
        this.name = name;
        this.dropped = dropped;
    }

    /**
     * Starts a daemon thread copying {@code stream} to {@code sink}.
     *
     * @param name what the stream is, for the error if the copy fails ("output", "error output").
     */
    static OutputPump start(final InputStream stream, final PrintWriter sink, final int rank, final String name)
    {
        return start(stream, sink, rank, name, null);
    }

    /**
     * As {@link #start(InputStream, PrintWriter, int, String)}, passing on every line but the first that equals
     * {@code dropped} (null: none).
     */
    static OutputPump start(final InputStream stream, final PrintWriter sink, final int rank, final String name, final String dropped)
    {
        final OutputPump pump = new OutputPump(stream, sink, rank, name, dropped);
        final Thread thread = new Thread(pump, "sm4j-rank-" + rank + "-" + name.replace(' ', '-'));
        thread.setDaemon(true);
        pump.thread = thread;
        thread.start();
        return pump;
    }

    @Override
    public void run()
    {
        final char[] chunk = new char[8192];
        try (reader)
        {
            for (int read = reader.read(chunk); read >= 0; read = reader.read(chunk))
            {
                for (int i = 0; i < read; i++)
                {
                    accept(chunk[i]);
                }
            }
            if (line.length() > 0)
            {
                emit();
            }
        }
        catch (final IOException ignore)
        {
            // the rank's pipe closed
        }
        catch (final RuntimeException | Error ex)
        {
            failure = ex;
            sink.println("sm4j run: lost the rest of rank " + rank + "'s " + name + ": " + ex); // one line, under the writer's lock
        }
    }

    /**
     * Lines end as {@link java.io.BufferedReader#readLine} ends them: at '\n', '\r' or "\r\n"; a line reaching
     * {@link #MAX_LINE} characters is passed on as it is.
     */
    private void accept(final char c)
    {
        final boolean lineFeedAfterReturn = afterCarriageReturn && c == '\n';
        afterCarriageReturn = c == '\r';
        if (c == '\n' || c == '\r')
        {
            if (!lineFeedAfterReturn && (line.length() > 0 || !split))
            {
                emit();
            }
            split = false;
            return;
        }
        line.append(c);
        if (line.length() == MAX_LINE)
        {
            emit();
            split = true;
        }
    }

    private void emit()
    {
        if (dropped != null && !split && dropped.contentEquals(line))
        {
            dropped = null; // once: the JVM prints it once, at its start; a rank's own such line is passed on
            line.setLength(0);
            return;
        }
        // NOTE: one write, atomic under the writer's lock: the launcher's own lines (println, the same lock) never land
        // inside a rank's line, as they could between separate appends (a lock on the PrintWriter object is not that lock)
        sink.write("[" + rank + "] " + line + System.lineSeparator());
        sink.flush();
        line.setLength(0);
    }

    /**
     * Waits up to {@code millis} for the stream to end.
     */
    void join(final long millis) throws InterruptedException
    {
        thread.join(millis);
    }

    /**
     * @return true if output was lost.
     */
    boolean failed()
    {
        return failure != null;
    }
}
