package io.sm4j.message;

import io.sm4j.collective.Channel;
import io.sm4j.collective.Collectives;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * A communicator's point-to-point on the collectives' tags (below {@link Communicator#ANY_TAG}, which no
 * user receive matches), for {@link Collectives}. Every wait is the communicator's: it progresses in the
 * rank's one engine and fails as every other wait does when a peer dies or the job aborts; a receive whose
 * source called another collective fails naming both calls ({@link CrossedCollectiveException}).
 */
final class CollectiveChannel implements Channel
{
    private final Communicator communicator;
    private final Status status = new Status();

    CollectiveChannel(final Communicator communicator)
    {
        this.communicator = communicator;
    }

    @Override
    public int rank()
    {
        return communicator.rank();
    }

    @Override
    public int size()
    {
        return communicator.size();
    }

    @Override
    public void send(final int dest, final int tag, final DirectBuffer buffer, final int offset, final int length)
    {
        communicator.sendOnCollectiveTag(dest, tag, buffer, offset, length);
    }

    @Override
    public int recv(final int source, final int tag, final MutableDirectBuffer buffer, final int offset, final int length)
    {
        try
        {
            return communicator.recvOnCollectiveTag(source, tag, buffer, offset, length, status).length();
        }
        catch (final TruncationException ex)
        {
            throw Collectives.mismatch(source, tag, -1, length);
        }
        catch (final CrossedCollectiveException ex)
        {
            throw Collectives.crossed(source, ex.theirTag(), tag);
        }
    }

    @Override
    public int sendRecv(
        final int dest, final int tag, final DirectBuffer sendBuffer, final int sendOffset, final int sendLength,
        final int source, final MutableDirectBuffer recvBuffer, final int recvOffset, final int recvLength)
    {
        try
        {
            return communicator.sendRecvOnCollectiveTag(dest, tag, sendBuffer, sendOffset, sendLength,
                source, recvBuffer, recvOffset, recvLength).length();
        }
        catch (final TruncationException ex)
        {
            throw Collectives.mismatch(source, tag, -1, recvLength);
        }
        catch (final CrossedCollectiveException ex)
        {
            throw Collectives.crossed(source, ex.theirTag(), tag);
        }
    }
}
