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
     * the same sender is delivered (unless {@link #acceptsAhead} takes it after all), and the next poll offers
     * it again: back-pressure instead of a copy.
     *
     * @param fragment the view {@link #onFragment} would get.
     * @return false to leave the fragment in shared memory for now.
     */
    default boolean accepts(final FragmentView fragment)
    {
        return true;
    }

    /**
     * @return true if {@code fragment} must not wait behind a message this handler declined: a message that
     *         the handler never declines and that another rank may wait for (a message layer's protocol
     *         message, an acknowledgement). The transport asks while it looks behind a declined message, in
     *         place; the view is valid only for the call.
     */
    default boolean mustNotWait(final FragmentView fragment)
    {
        return false;
    }

    /**
     * Asked after {@link #accepts} declined {@code fragment}: whether this handler takes it after all if the
     * same sender's path holds, behind it, something that must not wait ({@link #mustNotWait}, or a return of
     * this rank's fragment). A handler that declined for want of room says yes, so
     * that what the sender or this rank waits for is not held back by messages nobody has received yet. The
     * transport then looks behind it, and only if it finds such a thing delivers this message
     * ({@link #onFragment} follows) and the ones between, each asked here in turn; else the message stays, as
     * {@link #accepts} asked.
     *
     * @return false to leave it (and everything behind it) in shared memory whatever stands behind it.
     */
    default boolean acceptsAhead(final FragmentView fragment)
    {
        return false;
    }
}
