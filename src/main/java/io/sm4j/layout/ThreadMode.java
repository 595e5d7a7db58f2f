package io.sm4j.layout;

/**
 * Which threads of a rank may drive the transport; also decides the spacing of heads and tails.
 */
public enum ThreadMode
{
    /** One thread per rank drives the transport; heads and tails are packed. */
    SINGLE,
    /** Any thread may send or receive; every head and tail gets its own cacheline. */
    MULTIPLE
}
