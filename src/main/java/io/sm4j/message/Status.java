package io.sm4j.message;

/**
 * What a receive or probe matched.
 *
 * @param source the sending rank.
 * @param tag    the message's tag.
 * @param length the message's length in bytes.
 */
public record Status(int source, int tag, int length)
{
}
