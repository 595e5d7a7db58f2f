package io.sm4j.transport;

import java.util.concurrent.locks.ReentrantLock;

/**
 * A process-local lock that exists only in {@link io.sm4j.layout.ThreadMode#MULTIPLE}; in SINGLE mode
 * every operation is a no-op, so the single-threaded path pays a null check and nothing else.
 */
final class OptionalLock
{
    private static final OptionalLock NONE = new OptionalLock(null);
    private final ReentrantLock lock;

    private OptionalLock(final ReentrantLock lock)
    {
        this.lock = lock;
    }

    static OptionalLock create(final boolean multiple)
    {
        return multiple ? new OptionalLock(new ReentrantLock()) : NONE;
    }

    void lock()
    {
        if (lock != null)
        {
            lock.lock();
        }
    }

    void unlock()
    {
        if (lock != null)
        {
            lock.unlock();
        }
    }
}
