package io.sm4j.segment;

/**
 * The job was marked ABORTED (by a failing rank, a dead peer, or the launcher); every call of every rank
 * then fails with this exception.
 */
public final class JobAbortedException extends Sm4jException
{
    private static final long serialVersionUID = 1L;

    private final int abortingRank;

    public JobAbortedException(final int abortingRank, final String reason)
    {
        super("job aborted by " + (abortingRank < 0 ? "the launcher" : "rank " + abortingRank) + ": " + reason);
        this.abortingRank = abortingRank;
    }

    /**
     * @return the rank that aborted the job, or -1 for the launcher.
     */
    public int abortingRank()
    {
        return abortingRank;
    }
}
