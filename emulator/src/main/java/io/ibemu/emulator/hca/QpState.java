package io.ibemu.emulator.hca;

/**
 * QP states (IBA 10.3.1, {@code enum ib_qp_state} numbering) and what each allows, as rdmavt's
 * ib_rvt_state_ops table has it: posting receives from INIT on, posting sends from RTS on (in
 * ERR a posted send is flushed at once), receiving from RTR on, starting new sends in RTS only.
 */
public enum QpState {
    RESET(false, false, false, false),
    INIT(true, false, false, false),
    RTR(true, false, true, false),
    RTS(true, true, true, true),
    SQD(true, true, true, false),
    SQE(true, true, true, false),
    ERR(true, true, false, false);

    private final boolean postRecvOk;
    private final boolean postSendOk;
    private final boolean processRecvOk;
    private final boolean processSendOk;

    QpState(boolean postRecvOk, boolean postSendOk, boolean processRecvOk, boolean processSendOk) {
        this.postRecvOk = postRecvOk;
        this.postSendOk = postSendOk;
        this.processRecvOk = processRecvOk;
        this.processSendOk = processSendOk;
    }

    /** The {@code ib_qp_state} / {@code ibv_qp_state} number. */
    public int code() {
        return ordinal();
    }

    /** @throws IllegalArgumentException for a number outside 0..6 (the ABI layer answers EINVAL) */
    public static QpState ofCode(int code) {
        if (code < 0 || code >= values().length) {
            throw new IllegalArgumentException("QP state " + code);
        }
        return values()[code];
    }

    public boolean postRecvOk() {
        return postRecvOk;
    }

    public boolean postSendOk() {
        return postSendOk;
    }

    /** Whether arriving packets are handled (RTR and later, not ERR). */
    public boolean processRecvOk() {
        return processRecvOk;
    }

    /** Whether the send queue is started (RTS only; SQD finishes what it began). */
    public boolean processSendOk() {
        return processSendOk;
    }
}
