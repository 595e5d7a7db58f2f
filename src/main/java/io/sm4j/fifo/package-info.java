/**
 * The shared-memory primitives the transport is built of, each one algorithm over memory that
 * {@link io.sm4j.layout.SegmentLayout} places, with a unit test of its own:
 * <ul>
 * <li>the per-pair FIFO s -> r, one circular buffer (CB) of fragment offsets: the sender's end
 * ({@link io.sm4j.fifo.FifoProducer}) and the receiver's ({@link io.sm4j.fifo.FifoConsumer});</li>
 * <li>the per-pair fast box, a ring of records instead of offsets ({@link io.sm4j.fifo.FastBoxProducer},
 * {@link io.sm4j.fifo.FastBoxConsumer});</li>
 * <li>eager fragments as per-receiver rings paid for with credits that the receiver returns in one counted
 * word ({@link io.sm4j.fifo.EagerCredits});</li>
 * <li>max-size fragments on a process-local free list that receivers refill through the reverse FIFO
 * ({@link io.sm4j.fifo.FragmentPool}); only the owner ever touches it.</li>
 * </ul>
 * Single producer, single consumer; in MULTIPLE thread mode the caller serialises each end with a
 * process-local lock. Nothing here waits, locks or knows about ranks' health: that is the transport's.
 */
package io.sm4j.fifo;
