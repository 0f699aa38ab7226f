package io.ibemu.emulator.hca;

import java.util.ArrayDeque;
import java.util.concurrent.ScheduledFuture;

/**
 * A queue pair (IBA 10.2.4, 10.3): its type, the CQs and SRQ it uses, its state and attributes,
 * and the send and receive queues of posted work requests. State changes go through {@link
 * Hca#modify(QueuePair, QpAttributes, int)}; the transports live in {@link Requester} and {@link
 * Responder}. All mutable fields are guarded by the model lock.
 */
public final class QueuePair {
    private final Hca hca;
    private final ProtectionDomain pd;
    private final QpType type;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final SharedReceiveQueue srq;
    private final Xrcd xrcd;
    private final boolean sqSigAll;
    private final int qpNum;
    private final QpCapabilities capabilities;

    QpAttributes attrs;
    final ArrayDeque<SendWqe> sq = new ArrayDeque<>();
    /** Where posted send WRs come from when the program produces them in shared memory; null: post_send's list. */
    SendRing sendRing;
    /** The receive queue's WRs: the model's own until a provider shares a ring ({@link Hca#shareReceiveRing}). */
    ReceiveRing rq;
    /** The retry the head of the send queue waits for (RNR or transport timer); null when none. */
    ScheduledFuture<?> retry;
    /** Bumped whenever a retry is scheduled or cancelled, so a stale timer task does nothing. */
    int retryGeneration;
    /** Set while the head WQE waits for an answer that never comes (timeout 0: no retry timer). */
    boolean stalled;
    /** SQD entered with a begun WQE unfinished (rdmavt s_draining): cleared when it ends. */
    boolean sqDraining;
    /** Multicast groups attached (ib_qp usecnt: destroy is EBUSY while attached). */
    int multicastAttachments;
    boolean destroyed;
    /** The PSN of the next request packet (set by SQ_PSN, IBA 9.7.1); the model keeps it for the wire's view. */
    int sendPsn;
    /** The responder's message sequence number (AETH MSN, IBA 9.7.5.1.1): messages it acknowledged. */
    int msn;
    /** The responder's expected PSN (ePSN, set by RQ_PSN, IBA 9.7.5.1): a request below it is a duplicate. */
    int recvPsn;
    /** The PSN and original value of the last atomic executed: a duplicate gets it back, not run again (IBA 9.7.5.1.2). */
    int atomicPsn = -1;
    long atomicOriginal;

    QueuePair(Hca hca, ProtectionDomain pd, QpInitAttributes init, int qpNum, QpCapabilities capabilities) {
        this.hca = hca;
        this.pd = pd;
        this.type = init.type();
        this.sendCq = init.sendCq();
        this.recvCq = init.recvCq();
        this.srq = init.srq();
        this.xrcd = init.xrcd();
        this.sqSigAll = init.sqSigAll();
        this.qpNum = qpNum;
        this.capabilities = capabilities;
        this.attrs = QpAttributes.builder().cap(capabilities).build();
        this.rq = new PrivateReceiveRing(capabilities.maxRecvWr());
    }

    public Hca hca() {
        return hca;
    }

    /** The PD; null for an XRC target QP, which has none. */
    public ProtectionDomain pd() {
        return pd;
    }

    public QpType type() {
        return type;
    }

    public int qpNum() {
        return qpNum;
    }

    public CompletionQueue sendCq() {
        return sendCq;
    }

    public CompletionQueue recvCq() {
        return recvCq;
    }

    public SharedReceiveQueue srq() {
        return srq;
    }

    public Xrcd xrcd() {
        return xrcd;
    }

    public boolean sqSigAll() {
        return sqSigAll;
    }

    /** The capabilities granted at create (what create_qp returns). */
    public QpCapabilities capabilities() {
        return capabilities;
    }

    public QpState state() {
        synchronized (hca.lock()) {
            return attrs.qpState();
        }
    }

    /** Under the model lock: the current state. */
    QpState currentState() {
        return attrs.qpState();
    }

    /** Takes the head of the send queue; a shared ring gets its slot back (the WR's copy lives on). */
    SendWqe takeSend() {
        SendWqe w = sq.poll();
        if (w != null && sendRing != null) {
            sendRing.retire();
        }
        return w;
    }

    /** Drops every send WR (RESET): a shared ring gets all their slots back. */
    void clearSend() {
        while (takeSend() != null) {
            // each slot retired in order
        }
    }

    /** A posted send WR and its retry budget, reset when it starts (rdmavt s_retry / s_rnr_retry). */
    static final class SendWqe {
        final SendWorkRequest wr;
        final boolean signaled;
        /** Fetched from a shared ring but not a WR this QP can run: completes with LOC_QP_OP_ERR. */
        boolean invalid;
        int retryLeft;
        int rnrLeft;
        boolean started;
        /** The packet to send from: a request packet after a NAK, a READ response packet after a gap (IBA 9.7.5.2). */
        int resume;

        SendWqe(SendWorkRequest wr, boolean signaled) {
            this.wr = wr;
            this.signaled = signaled;
        }
    }

    @Override
    public String toString() {
        return type + " QP 0x" + Integer.toHexString(qpNum);
    }
}
