package io.sm4j.message;

/**
 * The message layer's protocol, carried in the type field of its header ({@link MessageHeaderDescriptor}).
 * <pre>
 *  type     tag        sequence               aux                                    payload
 *  EAGER    user tag   -                      -                                      the whole message
 *  RNDV     user tag   message seq (per pair) total length                           the first bytes
 *  ACK      0          message seq of RNDV    receiver request id (| FROM_START       -
 *                                                 | STREAMED_BY_CHOICE),
 *                      or RGET                    -1 to discard, -2 (RGET) copied
 *  FRAG     0          byte offset            receiver request id                    a max-size chunk
 *  BARRIER  0          barrier epoch          0                                      -
 *  RGET     user tag   message seq (per pair) total length                           the sender's shared buffer:
 *                                                                                    chunk id (8), position (8); or
 *                                                                                    PROCESS_MEMORY (8), address (8)
 *  PUSH     0          message seq of RNDV    receiver request id                    the receiver's shared buffer:
 *                                                                                    chunk id, position, from (8 each)
 *  HELP     0          split copy's sequence  length << 1 | 1 for a get              the origin's shared buffer: chunk
 *                                                                                    id, position; the target's part:
 *                                                                                    chunk id, offset (8 each)
 * </pre>
 * RGET is a large message sent from a shared buffer: the receiver that matches it copies every byte straight
 * out of the sender's buffer, then ACKs it with {@link #COPIED} (or {@link #DISCARD}), and the send completes.
 * A RGET whose chunk id is {@link #PROCESS_MEMORY} names an address of off-heap memory in the sender's process,
 * which the receiver reads through the kernel ({@link io.sm4j.transport.PeerMemory}); a receiver that cannot
 * answers as to a RNDV whose first bytes it dropped (its request id | {@link #FROM_START}), and the sender streams
 * the whole message through the pipeline, and sends that receiver RNDVs from then on; one that could, but has
 * found the pipeline faster lately ({@link FasterOfTwo}), answers the same with {@link #STREAMED_BY_CHOICE}
 * added, and is offered reads again.
 * A large message into a shared buffer of the receiver's own is pushed: the receiver answers a RNDV with PUSH
 * (copy bytes {@code from..total} into my buffer, there) instead of an ACK, the sender copies them straight
 * from its buffer, whatever its kind, and ACKs the receive with {@link #PUSHED}: one copy instead of the
 * pipeline's two. A RGET of 2 MiB and up, while both ranks can run at once, is copied by both: the
 * receiver sends PUSH for the second half, copies the first itself and ACKs COPIED; the receive completes
 * when both parts are in.
 * <p>
 * HELP asks the target of a window's large put or get to take chunks of the copy while the origin takes the
 * others ({@link io.sm4j.window.SplitCopy}); it needs no answer: the origin learns what the target copied
 * from the origin's buffer's header, and copies whatever the target did not take.
 */
final class MessageType
{
    static final int EAGER = 1;
    static final int RNDV = 2;
    static final int ACK = 3;
    static final int FRAG = 4;
    static final int BARRIER = 5;
    static final int RGET = 6;
    static final int PUSH = 7;
    static final int HELP = 8;
    /** RGET's payload: the chunk id and the position in it of the message's first byte. */
    static final int RGET_PAYLOAD = 2 * Long.BYTES;
    /** PUSH's payload: the receiver's chunk id, the position of byte {@code from} in it, and {@code from}. */
    static final int PUSH_PAYLOAD = 3 * Long.BYTES;
    /** HELP's payload: the origin's chunk id and position, the target's chunk id and offset. */
    static final int HELP_PAYLOAD = 4 * Long.BYTES;
    /** RGET's chunk id for a message in the sender's process memory, at the address its position gives. */
    static final long PROCESS_MEMORY = -1;
    /** ACK aux telling the sender the receiver discarded the message (truncation). */
    static final long DISCARD = -1;
    /**
     * ACK aux flag: the receiver kept only the RNDV's envelope, not its first bytes; the sender streams the
     * whole message (request ids stay far below it).
     */
    static final long FROM_START = 1L << 62;
    /**
     * ACK aux flag, beside {@link #FROM_START}, answering a RGET of {@link #PROCESS_MEMORY}: the receiver could have
     * read the message and has it streamed because the pipeline was the faster lately ({@link FasterOfTwo}); the
     * sender goes on offering its large messages to be read. Without it the receiver cannot read them, for good.
     */
    static final long STREAMED_BY_CHOICE = 1L << 61;
    /** ACK aux telling the sender of a RGET that the receiver has copied the whole message. */
    static final long COPIED = -2;
    /**
     * ACK aux telling the receiver of a RGET that the sender has copied the part a PUSH asked for; the ACK's
     * sequence is the receive's id.
     */
    static final long PUSHED = -3;

    /**
     * @return true for a message a receive matches (EAGER, RNDV, RGET): the one kind a receiver's budget may decline;
     *         the others are protocol messages that some wait needs.
     */
    static boolean matched(final int type)
    {
        return type == EAGER || type == RNDV || type == RGET;
    }

    private MessageType()
    {
    }
}
