package io.sm4j.transport;

import io.sm4j.job.Environment;
import io.sm4j.job.AbortReporter;
import io.sm4j.segment.BadSettingException;
import io.sm4j.segment.ProcessIdentity;
import io.sm4j.segment.Segment;

import java.nio.file.Path;
import java.util.Map;

/**
 * How a rank gets its transport endpoint: from an explicit segment path, rank and size (any process
 * manager, or threads of one JVM), or from the environment that {@code sm4j run} sets.
 * Applications normally go through {@code io.sm4j.message.Communicator}, which uses this.
 */
public final class Endpoints
{
    /** Path of the segment file. */
    public static final String SEGMENT_ENV = "SM4J_SEGMENT";
    /** This process's rank, 0..size-1. */
    public static final String RANK_ENV = "SM4J_RANK";
    /** Ranks in the job. */
    public static final String SIZE_ENV = "SM4J_SIZE";
    /** Job id, hexadecimal, as in the segment's name. */
    public static final String JOB_ID_ENV = "SM4J_JOB_ID";
    /**
     * Set by the launcher to the core it bound this rank to when every rank has a core of its own
     * ({@code --bind-to core} with no more ranks than cores): AUTO then spins as with a core per rank.
     */
    public static final String OWN_CORE_ENV = "SM4J_OWN_CORE";

    /**
     * @return true in a rank the launcher bound to a core of its own ({@link #OWN_CORE_ENV}).
     */
    public static boolean onOwnCore()
    {
        return System.getenv(OWN_CORE_ENV) != null;
    }

    private Endpoints()
    {
    }

    /**
     * @return this rank's endpoint, attached to the job's segment; close it to detach.
     * @throws BadSettingException if a variable is missing (the process was not started by {@code sm4j run}),
     *                             malformed, or disagrees with the segment.
     */
    public static Endpoint attachFromEnvironment()
    {
        return attach(System.getenv());
    }

    static Endpoint attach(final Map<String, String> env)
    {
        final String segmentPath = Environment.require(env, SEGMENT_ENV);
        final int rank = Environment.intValue(env, RANK_ENV);
        final int size = Environment.intValue(env, SIZE_ENV);
        final TransportOptions options = TransportOptions.fromEnvironment(env);
        if (options.launcherPid() != 0)
        {
            AbortReporter.install(Path.of(segmentPath), rank, options.launcherPid());
        }
        try
        {
            return attach(Path.of(segmentPath), rank, size, options);
        }
        catch (final BadSettingException ex)
        {
            throw ex;
        }
        catch (final IllegalArgumentException ex)
        {
            // the rank, size or a setting disagrees with the segment: the environment's fault, said in one line
            throw new BadSettingException(ex.getMessage());
        }
    }

    /**
     * Maps the segment at {@code segment} (waiting up to the attach timeout for it to be READY), registers
     * {@code rank} and waits until all {@code size} ranks have registered.
     *
     * @param segment path of a segment made by {@code Communicator.createSegment} or {@code sm4j create}.
     * @param rank    this rank, 0..size-1; every rank of the job attaches exactly once.
     * @param size    ranks in the job; must equal the count the segment was created for.
     * @param options per-rank settings, e.g. {@link TransportOptions#defaults()}.
     * @return the attached endpoint; closing it detaches, and the last rank to detach removes the file.
     * @throws IllegalArgumentException if {@code rank} or {@code size} disagree with the segment.
     * @throws io.sm4j.segment.Sm4jException if the segment is missing, invalid, aborted or not complete in time.
     */
    public static Endpoint attach(final Path segment, final int rank, final int size, final TransportOptions options)
    {
        if (size < 1 || rank < 0 || rank >= size)
        {
            throw new IllegalArgumentException("rank=" + rank + ", size=" + size + " (expected: 0 <= rank < size)");
        }
        final Segment mapped = Segment.attach(segment, options.attachTimeout(),
            options.launcherPid() == 0 ? null : new ProcessIdentity(options.launcherPid(), 0));
        try
        {
            final int peers = mapped.layout().params().peers();
            if (size != peers)
            {
                throw new IllegalArgumentException("size=" + size + " but the segment " + segment + " was created for " +
                    peers + " ranks");
            }
            return Endpoint.open(mapped, rank, options, true);
        }
        catch (final RuntimeException ex)
        {
            mapped.close();
            throw ex;
        }
    }
}
