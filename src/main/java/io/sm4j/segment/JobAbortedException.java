package io.sm4j.segment;

/**
 * The job was marked ABORTED (by a failing rank, a dead peer, or the launcher); every call of every rank
 * then fails with this exception.
 */
public final class JobAbortedException extends Sm4jException
{
    private static final long serialVersionUID = 1L;

    private final int abortingRank;
    private final String reason;
    private final int exitCode;

    public JobAbortedException(final int abortingRank, final String reason)
    {
        this(abortingRank, reason, 0);
    }

    /**
     * @param exitCode the code a rank's {@code abort(code, reason)} gave the job, 0 for none.
     */
    public JobAbortedException(final int abortingRank, final String reason, final int exitCode)
    {
        super("job aborted by " + (abortingRank < 0 ? "the launcher" : "rank " + abortingRank) + ": " + reason);
        this.abortingRank = abortingRank;
        this.reason = reason;
        this.exitCode = exitCode;
    }

    /**
     * @return the code a rank's {@code abort(code, reason)} gave the job (what {@code sm4j run} exits with, as
     *         mpirun does after MPI_Abort), or 0 if the abort gave none.
     */
    public int exitCode()
    {
        return exitCode;
    }

    /**
     * @return why the job was aborted, as the aborting process recorded it, e.g. {@code rank 1 (pid 42) died}.
     */
    public String reason()
    {
        return reason;
    }

    /**
     * @return the reason a rank records when it fails itself ({@code rank 2 threw java.lang.OutOfMemoryError: ...}),
     *         as opposed to one that reports another's failure ({@code rank 2 (pid 42) died}).
     */
    public static String ownFailure(final int rank, final Throwable failure)
    {
        return "rank " + rank + " threw " + failure;
    }

    /**
     * @return true if the aborting rank recorded its own failure ({@link #ownFailure}): that rank is the cause.
     */
    public boolean isOwnFailure()
    {
        return abortingRank >= 0 && reason.startsWith("rank " + abortingRank + " threw ");
    }

    /**
     * @return the rank that aborted the job, or -1 for the launcher.
     */
    public int abortingRank()
    {
        return abortingRank;
    }
}
