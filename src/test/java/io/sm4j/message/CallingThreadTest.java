package io.sm4j.message;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The calling-thread rule between two real threads: a thread that takes over while another starts a wait
 * during its grace is refused, and the waiting thread stays the caller (it goes on, and a close from the
 * refused thread is a close from another thread, which must not run passes beside it).
 */
@Timeout(60)
class CallingThreadTest
{
    @Test
    void aThreadRefusedBecauseAWaitStartedDuringItsGraceShouldLeaveTheWaiterTheCaller() throws Exception
    {
        int refusedInGrace = 0;
        for (int attempt = 0; attempt < 200 && refusedInGrace < 5; attempt++)
        {
            final CallingThread calling = new CallingThread(0);
            calling.check(); // this thread is the caller
            final AtomicReference<Throwable> outcome = new AtomicReference<>();
            final Thread other = new Thread(() ->
            {
                try
                {
                    calling.check();
                    outcome.set(new AssertionError("not refused"));
                }
                catch (final IllegalStateException refused)
                {
                    outcome.set(refused);
                }
            }, "other");
            other.start();
            while (other.getState() != Thread.State.TIMED_WAITING && other.isAlive())
            {
                Thread.onSpinWait(); // until the other thread has taken over and parks in its grace
            }
            final boolean inGrace = other.isAlive();
            calling.startWaiting();
            other.join();
            if (outcome.get() instanceof IllegalStateException refused)
            {
                refusedInGrace += inGrace ? 1 : 0;
                assertEquals("communicator of rank 0 used by two threads at once: thread '" +
                    Thread.currentThread().getName() + "' waits in it and thread 'other' called it; a Communicator " +
                    "is for one thread at a time (an Endpoint in ThreadMode.MULTIPLE for several)", refused.getMessage());
                assertDoesNotThrow(calling::checkWaiting, "the waiter stays the caller and goes on");
            }
            else
            {
                // the grace ended before the wait started: the other thread took over, and the waiter is refused
                assertThrows(IllegalStateException.class, calling::checkWaiting);
            }
            calling.endWaiting();
        }
        assertTrue(refusedInGrace > 0, "no attempt started the wait within the other thread's grace");
    }
}
