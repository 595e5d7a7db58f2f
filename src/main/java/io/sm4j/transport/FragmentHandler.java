package io.sm4j.transport;

/**
 * Receives fragments from {@link Endpoint#poll}.
 */
@FunctionalInterface
public interface FragmentHandler
{
    /**
     * @param fragment a read-only view, valid only until this method returns: the fragment then goes back
     *                 to its owner, who reuses it. Copy what must outlive the call.
     */
    void onFragment(FragmentView fragment);
}
