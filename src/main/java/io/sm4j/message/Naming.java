package io.sm4j.message;

/**
 * How a communicator made by {@code split} or {@code dup} names ranks and tags in the statuses it reports:
 * its own rank numbers and the user's tags, where the wire carries world ranks and its context's tags; and whether
 * it is still open, for the persistent requests it made (the engine they start in is the world's, open still).
 */
interface Naming
{
    int localRank(int worldRank);

    int userTag(int wireTag);

    /**
     * @throws IllegalStateException if the communicator has been closed.
     */
    void checkOpen();
}
