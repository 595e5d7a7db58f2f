/**
 * Shared buffers (MPI_Alloc_mem for JVMs): memory a rank allocates through the library, in files of its own
 * beside the segment, that its peers can map and copy from directly. {@link io.sm4j.window.LocalWindows}
 * allocates and frees this rank's; {@link io.sm4j.window.PeerWindows} maps the peers' once and keeps them
 * mapped (the seeds' registration cache, without hooks: the library owns the allocator). Sits on the
 * segment's files and the layout; the message layer uses it for single-copy large messages.
 */
package io.sm4j.window;
