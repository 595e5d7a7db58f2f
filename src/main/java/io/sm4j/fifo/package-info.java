/**
 * One circular buffer (CB) of the per-pair FIFO s -> r: the sender's end ({@link io.sm4j.fifo.FifoProducer})
 * and the receiver's end ({@link io.sm4j.fifo.FifoConsumer}) over the queue, head and tail that
 * {@link io.sm4j.layout.SegmentLayout} places. Single producer, single consumer; in MULTIPLE thread mode
 * the caller serialises each end with a process-local lock. Also the per-pair fast box's two ends
 * ({@link io.sm4j.fifo.FastBoxProducer}, {@link io.sm4j.fifo.FastBoxConsumer}): a ring of records instead of
 * a queue of fragment offsets.
 */
package io.sm4j.fifo;
