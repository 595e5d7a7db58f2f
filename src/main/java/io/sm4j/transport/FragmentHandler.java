package io.sm4j.transport;

/**
 * Receives fragments from {@link Endpoint#poll}.
 */
@FunctionalInterface
public interface FragmentHandler
{
    /**
     * Called right after {@link #accepts} returned true for the same fragment, so what {@code accepts} read
     * from it need not be read again (the sender can still write that memory).
     *
     * @param fragment a read-only view, valid only until this method returns: the memory then goes back to
     *                 its sender (a credit, a returned fragment, or room in the fast box), who reuses it.
     *                 Copy what must outlive the call.
     */
    void onFragment(FragmentView fragment);

    /**
     * Asked before {@link #onFragment}: a handler that cannot take a fragment now (e.g. its buffer for
     * unexpected messages is full) declines it. The fragment then stays where it is, nothing behind it from
     * the same sender is delivered, and the next poll offers it again: back-pressure instead of a copy.
     *
     * @param fragment the view {@link #onFragment} would get.
     * @return false to leave the fragment in shared memory for now.
     */
    default boolean accepts(final FragmentView fragment)
    {
        return true;
    }
}
