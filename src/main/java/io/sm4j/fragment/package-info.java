/**
 * Each sender's fragment pools: the process-local free lists over the eager and max-size fragments the
 * sender owns in the segment. Only the owner ever touches its free lists; receivers give fragments back
 * through the reverse FIFO.
 */
package io.sm4j.fragment;
