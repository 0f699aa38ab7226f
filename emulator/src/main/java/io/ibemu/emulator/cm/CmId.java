package io.ibemu.emulator.cm;

import io.ibemu.emulator.hca.Hca;
import io.ibemu.emulator.hca.QpState;
import io.ibemu.kernel.Errno;

/**
 * {@code struct ib_cm_id} and its cm_id_private: one end of a connection (or a listener) and its
 * place in cm.c's state machine. Every method fails with the kernel's errno: EINVAL in a state
 * that does not allow it (as ib_send_cm_rep in IDLE), EBUSY for a service another id listens on.
 */
public final class CmId {
    private final Cm cm;
    private final Hca hca;
    private final CmHandler handler;
    private final int localId;
    private CmState state = CmState.IDLE;
    private int remoteId;
    private long serviceId;
    private long serviceMask;

    CmId(Cm cm, Hca hca, CmHandler handler, int localId) {
        this.cm = cm;
        this.hca = hca;
        this.handler = handler;
        this.localId = localId;
    }

    /** ib_cm_listen: REQs and SIDR_REQs for {@code serviceId} under {@code serviceMask} (0 = exact) come here. */
    public void listen(long serviceId, long serviceMask) throws Errno {
        throw Errno.of(Errno.ENOSYS);
    }

    /** ib_send_cm_req: IDLE to REQ_SENT. */
    public void sendReq(CmRequestParam param) throws Errno {
        throw Errno.of(Errno.ENOSYS);
    }

    /** ib_send_cm_rep: REQ_RCVD or MRA_REQ_SENT to REP_SENT. */
    public void sendRep(CmReplyParam param) throws Errno {
        throw Errno.of(Errno.ENOSYS);
    }

    /** ib_send_cm_rtu: REP_RCVD or MRA_REP_SENT to ESTABLISHED. */
    public void sendRtu(byte[] privateData) throws Errno {
        throw Errno.of(Errno.ENOSYS);
    }

    /** ib_send_cm_dreq: ESTABLISHED to DREQ_SENT. */
    public void sendDreq(byte[] privateData) throws Errno {
        throw Errno.of(Errno.ENOSYS);
    }

    /** ib_send_cm_drep: DREQ_RCVD to TIMEWAIT. */
    public void sendDrep(byte[] privateData) throws Errno {
        throw Errno.of(Errno.ENOSYS);
    }

    /** ib_send_cm_rej: any handshake state to IDLE (or TIMEWAIT once a REP was exchanged). */
    public void sendRej(CmRejectReason reason, byte[] ari, byte[] privateData) throws Errno {
        throw Errno.of(Errno.ENOSYS);
    }

    /** ib_send_cm_mra: the peer is told to wait {@code serviceTimeout} (4.096 us * 2^t) longer. */
    public void sendMra(int serviceTimeout, byte[] privateData) throws Errno {
        throw Errno.of(Errno.ENOSYS);
    }

    /** ib_send_cm_sidr_req: IDLE to SIDR_REQ_SENT. */
    public void sendSidrReq(SidrRequestParam param) throws Errno {
        throw Errno.of(Errno.ENOSYS);
    }

    /** ib_send_cm_sidr_rep: SIDR_REQ_RCVD to IDLE. */
    public void sendSidrRep(SidrReplyParam param) throws Errno {
        throw Errno.of(Errno.ENOSYS);
    }

    /** ib_cm_notify(IB_EVENT_COMM_EST): REP_SENT or MRA_REP_RCVD to ESTABLISHED, a USER_ESTABLISHED event. */
    public void establish() throws Errno {
        throw Errno.of(Errno.ENOSYS);
    }

    /**
     * ib_cm_init_qp_attr: the attributes and mask that move the connection's QP to {@code target}
     * (INIT, RTR or RTS) from what the REQ and REP carried.
     */
    public QpAttributeChange initQpAttr(QpState target) throws Errno {
        throw Errno.of(Errno.ENOSYS);
    }

    /** ib_destroy_cm_id: sends what the state calls for (REJ, DREQ, DREP), then forgets the id. */
    public void destroy() {
    }

    public synchronized CmState state() {
        return state;
    }

    /** The local communication ID (cm_id.local_id, network order value as a number). */
    public int localId() {
        return localId;
    }

    public synchronized int remoteId() {
        return remoteId;
    }

    public synchronized long serviceId() {
        return serviceId;
    }

    public synchronized long serviceMask() {
        return serviceMask;
    }

    public Hca hca() {
        return hca;
    }

    CmHandler handler() {
        return handler;
    }
}
