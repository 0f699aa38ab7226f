package io.ibemu.emulator.hca;

/**
 * Where a receive queue's (a QP's or an SRQ's) posted work requests wait: the model's own queue
 * ({@link PrivateReceiveRing}, filled by the ABI's post_recv), or memory a provider layer shares
 * with the program, which posts into it with no system call (rdmavt's user {@code rvt_rwq}). The
 * model consumes in two steps, so a message that cannot use the head WR yet (an RNR, a UD
 * datagram too long for it) leaves it in place, as rvt's RVT_R_REUSE_SGE does. Called under the
 * model's lock; implementations over shared memory order their indices (acquire/release).
 */
public interface ReceiveRing {

    /** The oldest posted WR, left in place; null when none. */
    ReceiveWorkRequest peek();

    /** Takes the WR the last {@link #peek} gave. */
    void consume();

    /** Posts {@code r} (the ABI's post_recv); false, and nothing posted, when the ring is full. */
    boolean offer(ReceiveWorkRequest r);

    /** WRs posted and not yet consumed. */
    int size();

    /** Drops every WR: the QP went to RESET (rvt_reset_qp zeroes the indices). */
    void clear();
}
