package io.sm4j.transport;

import io.sm4j.it.ScratchDir;
import io.sm4j.layout.LayoutParams;
import io.sm4j.segment.Segment;
import io.sm4j.segment.SegmentFiles;

import java.io.IOException;

/**
 * A real 2-rank segment in a scratch directory, with rank {@code sleeper}'s doorbell (its word and its socket)
 * and the peers' doorbells as rank {@code sleeper} and the other rank see them: for tests of waiting and
 * ringing inside one JVM.
 */
final class BellRig implements AutoCloseable
{
    final Segment segment;
    /** Rank {@code sleeper}'s doorbell. */
    final Doorbell bell;
    /** The doorbells as the sleeping rank sees them (its own rings, and when it last rang). */
    final PeerBells sleeperBells;
    /** The doorbells as the other rank sees them: it rings the sleeper. */
    final PeerBells ringer;
    final int sleeper;
    private final ScratchDir dir;

    BellRig(final String prefix, final int sleeper) throws IOException
    {
        this.sleeper = sleeper;
        dir = ScratchDir.create(prefix);
        segment = Segment.create(LayoutParams.defaults(2), dir.path, 12);
        sleeperBells = new PeerBells(segment, sleeper, null, true);
        bell = Doorbell.open(segment.views().bell(sleeper), null, sleeperBells, SegmentFiles.bellPath(segment.path(), sleeper), false);
        ringer = new PeerBells(segment, 1 - sleeper, null, true);
    }

    @Override
    public void close() throws IOException
    {
        ringer.close();
        sleeperBells.close();
        bell.close();
        segment.close();
        dir.close();
    }
}
