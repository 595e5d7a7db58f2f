package io.sm4j.message;

/**
 * How a communicator made by {@code split} or {@code dup} names ranks and tags in the statuses it reports:
 * its own rank numbers and the user's tags, where the wire carries world ranks and its context's tags.
 */
interface Naming
{
    int localRank(int worldRank);

    int userTag(int wireTag);
}
