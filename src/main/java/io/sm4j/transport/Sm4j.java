package io.sm4j.transport;

import io.sm4j.segment.Segment;

import java.nio.file.Path;
import java.util.Map;

/**
 * Entry point for a rank started by {@code sm4j run}: the launcher passes the segment, rank, size and job id
 * in the environment.
 */
public final class Sm4j
{
    /** Path of the segment file. */
    public static final String SEGMENT_ENV = "SM4J_SEGMENT";
    /** This process's rank, 0..size-1. */
    public static final String RANK_ENV = "SM4J_RANK";
    /** Ranks in the job. */
    public static final String SIZE_ENV = "SM4J_SIZE";
    /** Job id, hexadecimal, as in the segment's name. */
    public static final String JOB_ID_ENV = "SM4J_JOB_ID";

    private Sm4j()
    {
    }

    /**
     * @return this rank's endpoint, attached to the job's segment; close it to detach.
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
        final Segment segment = Segment.attach(Path.of(segmentPath), options.attachTimeout());
        try
        {
            final int peers = segment.layout().params().peers();
            if (size != peers)
            {
                throw new IllegalArgumentException(SIZE_ENV + "=" + size + " but the segment was created for " + peers + " ranks");
            }
            return Endpoint.open(segment, rank, options, true);
        }
        catch (final RuntimeException ex)
        {
            segment.close();
            throw ex;
        }
    }
}
