package io.sm4j.segment;

/**
 * Keeps a segment's mapping alive around an access by a layer that does not own it: the owner (the
 * transport's endpoint) may be closed, and the mapping released, by another thread at any time.
 * <p>
 * Use: inside a {@code try}, {@code enterMapping()} and then the access; a caught {@link InternalError} goes
 * through {@link #fault}; in the {@code finally}, {@code exitMapping()} if the entry succeeded (a refused or
 * faulted entry has left already).
 */
public interface MappingGuard
{
    /**
     * Keeps the mapping alive until {@link #exitMapping}. Calls nest.
     *
     * @throws IllegalStateException if the owner is closed (nothing to exit then).
     */
    void enterMapping();

    void exitMapping();

    /**
     * @return the error to report for a fault of an access to the mapping ({@link Segment#fault}).
     * @throws InternalError {@code error} itself if it was not a fault of the mapping.
     */
    Sm4jException fault(InternalError error);
}
