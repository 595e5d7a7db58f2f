package io.sm4j.message;

/**
 * The message layer's protocol, carried in the type field of its header ({@link MessageHeaderDescriptor}).
 * <pre>
 *  type     tag        sequence               aux                                    payload
 *  EAGER    user tag   -                      -                                      the whole message
 *  RNDV     user tag   message seq (per pair) total length                           the first bytes
 *  ACK      0          message seq of RNDV    receiver request id (| FROM_START),    -
 *                                                 or -1 to discard
 *  FRAG     0          byte offset            receiver request id                    a max-size chunk
 *  BARRIER  0          barrier epoch          0                                      -
 * </pre>
 */
final class MessageType
{
    static final int EAGER = 1;
    static final int RNDV = 2;
    static final int ACK = 3;
    static final int FRAG = 4;
    static final int BARRIER = 5;
    /** ACK aux telling the sender the receiver discarded the message (truncation). */
    static final long DISCARD = -1;
    /**
     * ACK aux flag: the receiver kept only the RNDV's envelope, not its first bytes; the sender streams the
     * whole message (request ids stay far below it).
     */
    static final long FROM_START = 1L << 62;

    private MessageType()
    {
    }
}
