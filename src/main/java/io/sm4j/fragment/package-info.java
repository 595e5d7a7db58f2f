/**
 * Each sender's fragments: eager ones as per-receiver rings paid for with credits that the receiver returns
 * in one counted word ({@link io.sm4j.fragment.EagerCredits}), max-size ones on a process-local free list
 * ({@link io.sm4j.fragment.FragmentPool}) that receivers refill through the reverse FIFO. Only the owner
 * ever touches its free list.
 */
package io.sm4j.fragment;
