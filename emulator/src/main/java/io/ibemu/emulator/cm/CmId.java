package io.ibemu.emulator.cm;

import io.ibemu.emulator.agent.ReceivedMad;
import io.ibemu.emulator.agent.SendRequest;
import io.ibemu.emulator.agent.SendStatus;
import io.ibemu.emulator.hca.Access;
import io.ibemu.emulator.hca.AhAttributes;
import io.ibemu.emulator.hca.Hca;
import io.ibemu.emulator.hca.QpAttributeMask;
import io.ibemu.emulator.hca.QpAttributes;
import io.ibemu.emulator.hca.QpState;
import io.ibemu.emulator.hca.QpType;
import io.ibemu.emulator.mad.Bits;
import io.ibemu.emulator.mad.CmAttribute;
import io.ibemu.emulator.mad.CmDrep;
import io.ibemu.emulator.mad.CmDreq;
import io.ibemu.emulator.mad.CmMra;
import io.ibemu.emulator.mad.CmRej;
import io.ibemu.emulator.mad.CmRep;
import io.ibemu.emulator.mad.CmReq;
import io.ibemu.emulator.mad.CmRtu;
import io.ibemu.emulator.mad.CmSidrRep;
import io.ibemu.emulator.mad.CmSidrReq;
import io.ibemu.emulator.mad.Mad;
import io.ibemu.emulator.mad.PathRecord;
import io.ibemu.kernel.Errno;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Consumer;

import static io.ibemu.emulator.cm.CmState.DREQ_RCVD;
import static io.ibemu.emulator.cm.CmState.DREQ_SENT;
import static io.ibemu.emulator.cm.CmState.ESTABLISHED;
import static io.ibemu.emulator.cm.CmState.IDLE;
import static io.ibemu.emulator.cm.CmState.LISTEN;
import static io.ibemu.emulator.cm.CmState.MRA_REP_RCVD;
import static io.ibemu.emulator.cm.CmState.MRA_REP_SENT;
import static io.ibemu.emulator.cm.CmState.MRA_REQ_RCVD;
import static io.ibemu.emulator.cm.CmState.MRA_REQ_SENT;
import static io.ibemu.emulator.cm.CmState.REP_RCVD;
import static io.ibemu.emulator.cm.CmState.REP_SENT;
import static io.ibemu.emulator.cm.CmState.REQ_RCVD;
import static io.ibemu.emulator.cm.CmState.REQ_SENT;
import static io.ibemu.emulator.cm.CmState.SIDR_REQ_RCVD;
import static io.ibemu.emulator.cm.CmState.SIDR_REQ_SENT;
import static io.ibemu.emulator.cm.CmState.TIMEWAIT;

/**
 * {@code struct ib_cm_id} and its cm_id_private: one end of a connection (or a listener) and its
 * place in cm.c's state machine. Every method fails with the kernel's errno: EINVAL in a state
 * that does not allow it (as ib_send_cm_rep in IDLE) or for private data longer than the
 * message holds, EBUSY for a service another id listens on. All state is guarded by the CM's
 * lock; events reach the handler later, on the CM's thread.
 */
public final class CmId {
    /** IB_CM_MRA_FLAG_DELAY: enter the MRA state without sending the MRA. */
    public static final int MRA_FLAG_DELAY = 0x80;
    private static final Set<CmState> INIT_OK = EnumSet.of(REQ_SENT, MRA_REQ_RCVD, REQ_RCVD, MRA_REQ_SENT, REP_RCVD,
            MRA_REP_SENT, REP_SENT, MRA_REP_RCVD, ESTABLISHED);
    /** RTR and RTS (cm_init_qp_rtr_attr, cm_init_qp_rts_attr): the same states, RTS before the REP is sent too. */
    private static final Set<CmState> RTR_RTS_OK = EnumSet.of(REQ_RCVD, MRA_REQ_SENT, REP_RCVD, MRA_REP_SENT,
            REP_SENT, MRA_REP_RCVD, ESTABLISHED);

    private final Cm cm;
    private final Hca hca;
    private final CmHandler handler;
    private final int localId;

    // everything below: guarded by cm.lock()
    private CmState state = IDLE;
    private boolean destroyed;
    private int remoteId;
    private long serviceId;
    private long serviceMask;
    private AddressVector av;
    /** The TID of the exchange this id answers in (cm_id_priv->tid). */
    private long tid;
    /** The send that waits for an answer (REQ, REP, DREQ, SIDR_REQ), resent by the MAD layer. */
    private SendRequest msg;
    private int timeoutMs;
    private int maxCmRetries;
    private QpType qpType;
    private int localQpn;
    private int remoteQpn;
    private int sqPsn;
    private int rqPsn;
    private int initiatorDepth;
    private int responderResources;
    private int pathMtu;
    private int retryCount;
    private int rnrRetryCount;
    private long remoteCaGuid;
    private int serviceTimeout;
    /** What a duplicate gets again (cm_set_private_data): the RTU's or MRA's private data. */
    private byte[] privateData = new byte[0];
    private ScheduledFuture<?> timewait;
    /** How many ib_cm_insert_listen callers share this listener (listen_sharecount). */
    private int listenShares;

    CmId(Cm cm, Hca hca, CmHandler handler, int localId) {
        this.cm = cm;
        this.hca = hca;
        this.handler = handler;
        this.localId = localId;
    }

    // ---- the consumer's calls (ib_cm.h) ----

    /**
     * ib_cm_listen: REQs and SIDR_REQs for {@code serviceId} under {@code serviceMask} (0 =
     * exact) come here; EBUSY when another id on the device listens on an overlapping range.
     */
    public void listen(long serviceId, long serviceMask) throws Errno {
        synchronized (cm.lock()) {
            alive();
            if (state != IDLE) {
                throw Errno.of(Errno.EINVAL);
            }
            Cm.Service s = cm.service(serviceId, serviceMask);
            if (cm.listenerCovering(hca.local(), s) != null) {
                throw Errno.of(Errno.EBUSY);
            }
            startListening(s);
        }
    }

    /** LISTEN on {@code s}, with one share (cm_insert_listen's listen_sharecount). */
    void startListening(Cm.Service s) {
        serviceId = s.id();
        serviceMask = s.mask();
        listenShares = 1;
        state = LISTEN;
        cm.addListener(this);
    }

    void shareListen() {
        listenShares++;
    }

    /** ib_send_cm_req: IDLE to REQ_SENT; the MAD layer resends the REQ until answered or out of retries. */
    public void sendReq(CmRequestParam param) throws Errno {
        PathRecord path = param.primaryPath();
        if (path == null || (param.qpType() != QpType.RC && param.qpType() != QpType.UC
                && param.qpType() != QpType.XRC_INI) || param.privateData().length > CmReq.PRIVATE_DATA_SIZE) {
            throw Errno.of(Errno.EINVAL);
        }
        PathRecord alt = param.alternatePath();
        if (alt != null && (alt.pkey() != path.pkey() || alt.mtu() != path.mtu())) {
            throw Errno.of(Errno.EINVAL);
        }
        synchronized (cm.lock()) {
            alive();
            if (state != IDLE) {
                throw Errno.of(Errno.EINVAL);
            }
            AddressVector address = cm.addressFor(hca.local(), path);
            av = address;
            serviceId = param.serviceId();
            serviceMask = ~0L;
            timeoutMs = Cm.toMs(path.packetLife()) * 2 + Cm.toMs(param.remoteCmResponseTimeout());
            maxCmRetries = param.maxCmRetries();
            initiatorDepth = param.initiatorDepth();
            responderResources = param.responderResources();
            retryCount = param.retryCount();
            rnrRetryCount = param.rnrRetryCount();
            pathMtu = path.mtu();
            qpType = param.qpType();
            localQpn = param.qpNum() & 0xffffff;
            rqPsn = param.startingPsn() & 0xffffff;
            remoteId = 0;
            tid = address.port().hiTid() | (localId & 0xffffffffL);
            byte[] mad = CmAttribute.mad(CmAttribute.REQ, tid);
            request(param, path, alt).encode(mad);
            msg = address.port().send(mad, address, timeoutMs, maxCmRetries, this);
            state = REQ_SENT;
        }
    }

    /** cm_format_req; IBA_SET keeps each value's low bits, as here. */
    private CmReq request(CmRequestParam p, PathRecord path, PathRecord alt) {
        boolean xrc = p.qpType() == QpType.XRC_INI;
        int transport = switch (p.qpType()) {
            case UC -> CmReq.TRANSPORT_UC;
            case XRC_INI -> CmReq.TRANSPORT_EXTENDED;
            default -> CmReq.TRANSPORT_RC;
        };
        int ackDelay = hca.attributes().localCaAckDelay();
        boolean local = path.hopLimit() <= 1;
        boolean altLocal = alt != null && alt.hopLimit() <= 1;
        return new CmReq(localId, p.serviceId(), hca.local().node().guid(), 0, localQpn,
                xrc ? 0 : low(p.responderResources(), 8), 0, low(p.initiatorDepth(), 8), 0,
                low(p.remoteCmResponseTimeout(), 5), transport, p.flowControl(), rqPsn,
                low(p.localCmResponseTimeout(), 5), xrc ? 0 : low(p.retryCount(), 3), path.pkey(), path.mtu(), false,
                xrc ? 0 : low(p.rnrRetryCount(), 3), low(p.maxCmRetries(), 4), !xrc && p.srq(),
                xrc ? CmReq.EXTENDED_TRANSPORT_XRC : 0,
                local ? path.slid() : 0xffff, local ? path.dlid() : 0xffff, path.sgidPrefix(), path.sgidInterface(),
                path.dgidPrefix(), path.dgidInterface(), path.flowLabel(), path.rate(), path.trafficClass(),
                path.hopLimit(), path.sl(), local, ackTimeout(ackDelay, path.packetLife()),
                alt == null ? 0 : altLocal ? alt.slid() : 0xffff, alt == null ? 0 : altLocal ? alt.dlid() : 0xffff,
                alt == null ? 0 : alt.sgidPrefix(), alt == null ? 0 : alt.sgidInterface(),
                alt == null ? 0 : alt.dgidPrefix(), alt == null ? 0 : alt.dgidInterface(),
                alt == null ? 0 : alt.flowLabel(), alt == null ? 0 : alt.rate(), alt == null ? 0 : alt.trafficClass(),
                alt == null ? 0 : alt.hopLimit(), alt == null ? 0 : alt.sl(), altLocal,
                alt == null ? 0 : ackTimeout(ackDelay, alt.packetLife()), false, p.privateData());
    }

    /** The low {@code bits} of {@code v}: what IBA_SET (FIELD_PREP) writes of a wider value. */
    private static int low(int v, int bits) {
        return v & ((1 << bits) - 1);
    }

    /** ib_send_cm_rep: REQ_RCVD or MRA_REQ_SENT to REP_SENT; resent until the RTU comes. */
    public void sendRep(CmReplyParam param) throws Errno {
        if (param.privateData().length > CmRep.PRIVATE_DATA_SIZE) {
            throw Errno.of(Errno.EINVAL);
        }
        synchronized (cm.lock()) {
            alive();
            if (state != REQ_RCVD && state != MRA_REQ_SENT) {
                throw Errno.of(Errno.EINVAL);
            }
            portAlive();
            boolean xrcTarget = qpType == QpType.XRC_TGT;
            int qpn = param.qpNum() & 0xffffff;
            CmRep rep = new CmRep(localId, remoteId, 0, xrcTarget ? 0 : qpn, xrcTarget ? qpn : 0,
                    param.startingPsn() & 0xffffff, low(param.responderResources(), 8),
                    xrcTarget ? 0 : low(param.initiatorDepth(), 8), low(hca.attributes().localCaAckDelay(), 5),
                    low(param.failoverAccepted(), 2), !xrcTarget && param.flowControl(),
                    low(param.rnrRetryCount(), 3),
                    xrcTarget || param.srq(), hca.local().node().guid(), param.privateData());
            byte[] mad = CmAttribute.mad(CmAttribute.REP, tid);
            rep.encode(mad);
            msg = av.port().send(mad, av, timeoutMs, maxCmRetries, this);
            state = REP_SENT;
            initiatorDepth = param.initiatorDepth();
            responderResources = param.responderResources();
            rqPsn = param.startingPsn() & 0xffffff;
            localQpn = qpn;
        }
    }

    /** ib_send_cm_rtu: REP_RCVD or MRA_REP_SENT to ESTABLISHED. */
    public void sendRtu(byte[] privateData) throws Errno {
        byte[] pd = orEmpty(privateData);
        if (pd.length > CmRtu.PRIVATE_DATA_SIZE) {
            throw Errno.of(Errno.EINVAL);
        }
        synchronized (cm.lock()) {
            alive();
            if (state != REP_RCVD && state != MRA_REP_SENT) {
                throw Errno.of(Errno.EINVAL);
            }
            portAlive();
            sendNow(CmAttribute.RTU, tid, rtu(pd)::encode);
            state = ESTABLISHED;
            this.privateData = pd;
        }
    }

    private CmRtu rtu(byte[] pd) {
        return new CmRtu(localId, remoteId, pd);
    }

    /** ib_send_cm_dreq: ESTABLISHED to DREQ_SENT; resent until the DREP comes. */
    public void sendDreq(byte[] privateData) throws Errno {
        byte[] pd = orEmpty(privateData);
        if (pd.length > CmDreq.PRIVATE_DATA_SIZE) {
            throw Errno.of(Errno.EINVAL);
        }
        synchronized (cm.lock()) {
            alive();
            if (state == ESTABLISHED) {
                portAlive();
            }
            sendDreqLocked(pd);
        }
    }

    /** cm_send_dreq_locked. */
    private void sendDreqLocked(byte[] pd) throws Errno {
        if (state != ESTABLISHED) {
            throw Errno.of(Errno.EINVAL);
        }
        tid = av.port().hiTid() | (localId & 0xffffffffL);
        byte[] mad = CmAttribute.mad(CmAttribute.DREQ, tid);
        new CmDreq(localId, remoteId, remoteQpn, pd).encode(mad);
        msg = av.port().send(mad, av, timeoutMs, maxCmRetries, this);
        if (msg == null) {
            enterTimewait();
            return;
        }
        state = DREQ_SENT;
    }

    /** ib_send_cm_drep: DREQ_RCVD to TIMEWAIT. */
    public void sendDrep(byte[] privateData) throws Errno {
        byte[] pd = orEmpty(privateData);
        if (pd.length > CmDrep.PRIVATE_DATA_SIZE) {
            throw Errno.of(Errno.EINVAL);
        }
        synchronized (cm.lock()) {
            alive();
            if (state == DREQ_RCVD) {
                portAlive();
            }
            sendDrepLocked(pd);
        }
    }

    private void sendDrepLocked(byte[] pd) throws Errno {
        if (state != DREQ_RCVD) {
            throw Errno.of(Errno.EINVAL);
        }
        sendNow(CmAttribute.DREP, tid, new CmDrep(localId, remoteId, pd)::encode);
        enterTimewait();
    }

    /**
     * ib_send_cm_rej: from any handshake state to IDLE, or to TIMEWAIT once our REP is out
     * (the peer may already use the QP).
     */
    public void sendRej(CmRejectReason reason, byte[] ari, byte[] privateData) throws Errno {
        byte[] info = orEmpty(ari);
        byte[] pd = orEmpty(privateData);
        if (info.length > CmRej.ARI_SIZE || pd.length > CmRej.PRIVATE_DATA_SIZE) {
            throw Errno.of(Errno.EINVAL);
        }
        synchronized (cm.lock()) {
            alive();
            if (av != null) {
                portAlive();
            }
            sendRejLocked(reason, info, pd);
        }
    }

    /** cm_send_rej_locked with cm_format_rej: the ids and "message rejected" as the state before. */
    private void sendRejLocked(CmRejectReason reason, byte[] ari, byte[] pd) throws Errno {
        CmState was = state;
        switch (was) {
            case REQ_SENT, MRA_REQ_RCVD, REQ_RCVD, MRA_REQ_SENT, REP_RCVD, MRA_REP_SENT -> resetToIdle();
            case REP_SENT, MRA_REP_RCVD -> enterTimewait();
            default -> throw Errno.of(Errno.EINVAL);
        }
        // the send in flight (a REQ, a REP) is left to run out, as cm_send_rej_locked leaves it
        int rejected = switch (was) {
            case REQ_RCVD, MRA_REQ_SENT -> CmAttribute.MESSAGE_REQ;
            case REP_RCVD, MRA_REP_SENT -> CmAttribute.MESSAGE_REP;
            default -> CmAttribute.MESSAGE_OTHER;
        };
        int local = was == REQ_RCVD ? 0 : localId;
        sendNow(CmAttribute.REJ, tid,
                new CmRej(local, remoteId, rejected, ari.length, reason.code(), ari, pd)::encode);
    }

    /**
     * ib_send_cm_mra: the peer is told to wait {@code serviceTimeout} (4.096 us * 2^t) longer
     * for our REP (in REQ_RCVD) or RTU (in REP_RCVD). With {@link #MRA_FLAG_DELAY} the state
     * changes but nothing is sent until a duplicate asks.
     */
    public void sendMra(int serviceTimeout, byte[] privateData) throws Errno {
        byte[] pd = orEmpty(privateData);
        if (pd.length > CmMra.PRIVATE_DATA_SIZE) {
            throw Errno.of(Errno.EINVAL);
        }
        synchronized (cm.lock()) {
            alive();
            CmState next;
            int mraed;
            switch (state) {
                case REQ_RCVD -> {
                    next = MRA_REQ_SENT;
                    mraed = CmAttribute.MESSAGE_REQ;
                }
                case REP_RCVD -> {
                    next = MRA_REP_SENT;
                    mraed = CmAttribute.MESSAGE_REP;
                }
                default -> throw Errno.of(Errno.EINVAL);
            }
            portAlive();
            this.serviceTimeout = serviceTimeout & ~MRA_FLAG_DELAY & 0x1f;
            this.privateData = pd;
            if ((serviceTimeout & MRA_FLAG_DELAY) == 0) {
                sendNow(CmAttribute.MRA, tid, mra(mraed)::encode);
            }
            state = next;
        }
    }

    private CmMra mra(int mraed) {
        return new CmMra(localId, remoteId, mraed, serviceTimeout, privateData);
    }

    /** ib_send_cm_sidr_req: IDLE to SIDR_REQ_SENT; resent every {@code timeoutMs} until answered. */
    public void sendSidrReq(SidrRequestParam param) throws Errno {
        if (param.path() == null || param.privateData().length > CmSidrReq.PRIVATE_DATA_SIZE) {
            throw Errno.of(Errno.EINVAL);
        }
        synchronized (cm.lock()) {
            alive();
            if (state != IDLE) {
                throw Errno.of(Errno.EINVAL);
            }
            AddressVector address = cm.addressFor(hca.local(), param.path());
            av = address;
            serviceId = param.serviceId();
            serviceMask = ~0L;
            timeoutMs = param.timeoutMs();
            maxCmRetries = param.maxCmRetries();
            tid = address.port().hiTid() | (localId & 0xffffffffL);
            byte[] mad = CmAttribute.mad(CmAttribute.SIDR_REQ, tid);
            new CmSidrReq(localId, param.path().pkey() & 0xffff, serviceId, param.privateData()).encode(mad);
            msg = address.port().send(mad, address, timeoutMs, maxCmRetries, this);
            state = SIDR_REQ_SENT;
        }
    }

    /** ib_send_cm_sidr_rep: SIDR_REQ_RCVD to IDLE. */
    public void sendSidrRep(SidrReplyParam param) throws Errno {
        if (param.info().length > CmSidrRep.INFO_SIZE || param.privateData().length > CmSidrRep.PRIVATE_DATA_SIZE) {
            throw Errno.of(Errno.EINVAL);
        }
        synchronized (cm.lock()) {
            alive();
            if (state == SIDR_REQ_RCVD) {
                portAlive();
            }
            sendSidrRepLocked(param);
        }
    }

    private void sendSidrRepLocked(SidrReplyParam param) throws Errno {
        if (state != SIDR_REQ_RCVD) {
            throw Errno.of(Errno.EINVAL);
        }
        sendNow(CmAttribute.SIDR_REP, tid, new CmSidrRep(remoteId, param.status().code(), param.info().length,
                param.qpNum() & 0xffffff, serviceId, param.qkey(), param.info(), param.privateData())::encode);
        state = IDLE;
        cm.forgetSidr(this);
    }

    /**
     * ib_cm_notify(IB_EVENT_COMM_EST), cm_establish: the passive side's QP saw traffic before
     * the RTU; REP_SENT or MRA_REP_RCVD become ESTABLISHED with a USER_ESTABLISHED event;
     * EISCONN when ESTABLISHED already, EINVAL in any other state.
     */
    public void establish() throws Errno {
        synchronized (cm.lock()) {
            alive();
            switch (state) {
                case REP_SENT, MRA_REP_RCVD -> {
                    cancelMsg();
                    state = ESTABLISHED;
                    cm.deliver(this, new CmEvent.UserEstablished());
                }
                case ESTABLISHED -> throw Errno.of(Errno.EISCONN);
                default -> throw Errno.of(Errno.EINVAL);
            }
        }
    }

    /**
     * ib_cm_init_qp_attr: the attributes and mask that move the connection's QP to {@code
     * target} (INIT, RTR or RTS) from what the REQ and REP carried; EINVAL for another target
     * or a state without them.
     */
    public QpAttributeChange initQpAttr(QpState target) throws Errno {
        synchronized (cm.lock()) {
            alive();
            return switch (target) {
                case INIT -> initAttr();
                case RTR -> rtrAttr();
                case RTS -> rtsAttr();
                default -> throw Errno.of(Errno.EINVAL);
            };
        }
    }

    /** cm_init_qp_init_attr. */
    private QpAttributeChange initAttr() throws Errno {
        if (!INIT_OK.contains(state)) {
            throw Errno.of(Errno.EINVAL);
        }
        int access = Access.REMOTE_WRITE;
        if (responderResources != 0) {
            access |= Access.REMOTE_READ | Access.REMOTE_ATOMIC;
        }
        QpAttributes a = QpAttributes.builder().qpState(QpState.INIT).qpAccessFlags(access)
                .pkeyIndex(av.pkeyIndex()).portNum(av.port().number()).build();
        return new QpAttributeChange(a, QpAttributeMask.STATE | QpAttributeMask.ACCESS_FLAGS
                | QpAttributeMask.PKEY_INDEX | QpAttributeMask.PORT);
    }

    /** cm_init_qp_rtr_attr. */
    private QpAttributeChange rtrAttr() throws Errno {
        if (!RTR_RTS_OK.contains(state)) {
            throw Errno.of(Errno.EINVAL);
        }
        int mask = QpAttributeMask.STATE | QpAttributeMask.AV | QpAttributeMask.PATH_MTU | QpAttributeMask.DEST_QPN
                | QpAttributeMask.RQ_PSN;
        QpAttributes.Builder b = QpAttributes.builder().qpState(QpState.RTR)
                .ah(new AhAttributes(av.dlid(), av.sl(), av.srcPathBits(), av.rate(), av.port().number(), null))
                .pathMtu(pathMtu).destQpNum(remoteQpn).rqPsn(rqPsn);
        if (qpType == QpType.RC || qpType == QpType.XRC_TGT) {
            mask |= QpAttributeMask.MAX_DEST_RD_ATOMIC | QpAttributeMask.MIN_RNR_TIMER;
            b.maxDestRdAtomic(responderResources).minRnrTimer(0);
        }
        return new QpAttributeChange(b.build(), mask);
    }

    /** cm_init_qp_rts_attr (no alternate path: LAP is not offered). */
    private QpAttributeChange rtsAttr() throws Errno {
        if (!RTR_RTS_OK.contains(state)) {
            throw Errno.of(Errno.EINVAL);
        }
        int mask = QpAttributeMask.STATE | QpAttributeMask.SQ_PSN;
        QpAttributes.Builder b = QpAttributes.builder().qpState(QpState.RTS).sqPsn(sqPsn);
        if (qpType == QpType.RC || qpType == QpType.XRC_INI) {
            mask |= QpAttributeMask.RETRY_CNT | QpAttributeMask.RNR_RETRY | QpAttributeMask.MAX_QP_RD_ATOMIC;
            b.retryCnt(retryCount).rnrRetry(rnrRetryCount).maxRdAtomic(initiatorDepth);
        }
        if (qpType == QpType.RC || qpType == QpType.XRC_INI || qpType == QpType.XRC_TGT) {
            mask |= QpAttributeMask.TIMEOUT;
            b.timeout(av.timeout());
        }
        return new QpAttributeChange(b.build(), mask);
    }

    /**
     * ib_destroy_cm_id (cm_destroy_id): sends what the state calls for — REJ(TIMEOUT) for a REQ
     * in flight, REJ(CONSUMER_DEFINED) mid-handshake, DREQ when established, DREP when asked,
     * SIDR_REP(REJECT) — then forgets the id: no event reaches its handler afterwards.
     */
    public void destroy() {
        synchronized (cm.lock()) {
            if (destroyed) {
                return;
            }
            if (state == LISTEN && --listenShares > 0) {
                return; // still shared
            }
            try {
                leave();
            } catch (Errno e) {
                // each step is taken only in a state that allows it; were one refused, the id still goes
                System.err.println("ib_cm: destroy of " + this + ": errno " + e.code());
            }
            destroyed = true;
            state = IDLE;
            if (timewait != null) {
                timewait.cancel(false);
            }
            cm.forget(this);
        }
    }

    /** cm_destroy_id's switch, with its "goto retest" as a loop. */
    private void leave() throws Errno {
        while (true) {
            switch (state) {
                case LISTEN, SIDR_REQ_SENT, TIMEWAIT, IDLE -> {
                    cancelMsg();
                    state = IDLE;
                    return;
                }
                case SIDR_REQ_RCVD -> {
                    sendSidrRepLocked(new SidrReplyParam(0, 0, SidrStatus.REJECT, null, null));
                    return;
                }
                case REQ_SENT, MRA_REQ_RCVD -> {
                    cancelMsg();
                    sendRejLocked(CmRejectReason.TIMEOUT, guidBytes(hca.local().node().guid()), new byte[0]);
                    return;
                }
                case REQ_RCVD, MRA_REQ_SENT, REP_RCVD, MRA_REP_SENT -> {
                    sendRejLocked(CmRejectReason.CONSUMER_DEFINED, new byte[0], new byte[0]);
                    return;
                }
                case REP_SENT, MRA_REP_RCVD -> {
                    cancelMsg();
                    sendRejLocked(CmRejectReason.CONSUMER_DEFINED, new byte[0], new byte[0]);
                }
                case ESTABLISHED -> {
                    if (qpType == QpType.XRC_TGT) {
                        state = IDLE;
                        return;
                    }
                    sendDreqLocked(new byte[0]);
                }
                case DREQ_SENT -> {
                    cancelMsg();
                    enterTimewait();
                }
                case DREQ_RCVD -> sendDrepLocked(new byte[0]);
            }
        }
    }

    public CmState state() {
        synchronized (cm.lock()) {
            return state;
        }
    }

    /** The local communication ID (cm_id.local_id). */
    public int localId() {
        return localId;
    }

    /** The peer's communication ID, 0 until its REQ or REP told it. */
    public int remoteId() {
        synchronized (cm.lock()) {
            return remoteId;
        }
    }

    public long serviceId() {
        synchronized (cm.lock()) {
            return serviceId;
        }
    }

    public long serviceMask() {
        synchronized (cm.lock()) {
            return serviceMask;
        }
    }

    /** The local port the connection uses (0 before a REQ went or came). */
    public int port() {
        synchronized (cm.lock()) {
            return av == null ? 0 : av.port().number();
        }
    }

    public Hca hca() {
        return hca;
    }

    CmHandler handler() {
        return handler;
    }

    boolean destroyed() {
        synchronized (cm.lock()) {
            return destroyed;
        }
    }

    @Override
    public String toString() {
        return String.format("cm_id 0x%08x %s", localId, state);
    }

    // ---- what the CM thread does with arriving MADs (cm.lock held) ----

    /** cm_req_handler for a REQ a listener takes: REQ_RCVD, and REQ_RECEIVED to the listener's handler. */
    void requestReceived(CmPort port, ReceivedMad r, CmReq req, CmId listener) {
        remoteId = req.localCommId();
        serviceId = req.serviceId();
        serviceMask = ~0L;
        tid = Mad.transactionId(r.message());
        timeoutMs = Cm.toMs(req.localCmResponseTimeout());
        maxCmRetries = req.maxCmRetries();
        remoteQpn = req.localQpn();
        initiatorDepth = req.responderResources();
        responderResources = req.initiatorDepth();
        pathMtu = req.pathMtu();
        sqPsn = req.startingPsn();
        retryCount = req.retryCount();
        rnrRetryCount = req.rnrRetryCount();
        qpType = qpTypeOf(req);
        remoteCaGuid = req.localCaGuid();
        state = REQ_RCVD;
        cm.insertRemoteId(new Cm.RemoteKey(remoteCaGuid, remoteId & 0xffffffffL), this);
        cm.insertRemoteQpn(new Cm.RemoteKey(remoteCaGuid, remoteQpn), this);
        PathRecord primary = pathFromReq(req, r.slid());
        PathRecord alternate = req.alternateLocalLid() != 0 ? alternateFromReq(req) : null;
        int pkeyIndex = r.pkeyIndex();
        av = new AddressVector(port, primary.dlid(), primary.sl(), r.pathBits(), pkeyIndex, primary.rate(),
                Math.min(31, primary.packetLife() + 1));
        cm.deliver(this, new CmEvent.ReqReceived(listener, cm.pkeyAt(port, pkeyIndex), port.number(), primary,
                alternate, req.localCaGuid(), req.localQkey(), req.localQpn(), qpType, req.startingPsn(),
                req.initiatorDepth(), req.responderResources(), req.remoteCmResponseTimeout(), req.flowControl(),
                req.localCmResponseTimeout(), req.retryCount(), req.rnrRetryCount(), req.srq(), req.privateData()));
    }

    /** cm_req_get_qp_type: what the REQ's transport fields say, seen from the passive side. */
    private static QpType qpTypeOf(CmReq req) {
        return switch (req.transportServiceType()) {
            case CmReq.TRANSPORT_UC -> QpType.UC;
            case CmReq.TRANSPORT_EXTENDED -> req.extendedTransportType() == CmReq.EXTENDED_TRANSPORT_XRC
                    ? QpType.XRC_TGT : QpType.RC;
            default -> QpType.RC;
        };
    }

    /** cm_format_paths_from_req: the path back to the active side, DLID from the MAD's SLID. */
    private static PathRecord pathFromReq(CmReq req, int slid) {
        int life = req.primaryLocalAckTimeout();
        return new PathRecord(req.serviceId(), req.primaryLocalGidPrefix(), req.primaryLocalGidInterface(),
                req.primaryRemoteGidPrefix(), req.primaryRemoteGidInterface(), slid, req.primaryRemoteLid(), false,
                req.primaryFlowLabel(), req.primaryHopLimit(), req.primaryTrafficClass(), true, 0, req.pkey(), 0,
                req.primarySl(), SA_EQ, req.pathMtu(), SA_EQ, req.primaryPacketRate(), SA_EQ,
                life - (life > 0 ? 1 : 0), 0);
    }

    private static PathRecord alternateFromReq(CmReq req) {
        int life = req.alternateLocalAckTimeout();
        return new PathRecord(req.serviceId(), req.alternateLocalGidPrefix(), req.alternateLocalGidInterface(),
                req.alternateRemoteGidPrefix(), req.alternateRemoteGidInterface(), req.alternateLocalLid(),
                req.alternateRemoteLid(), false, req.alternateFlowLabel(), req.alternateHopLimit(),
                req.alternateTrafficClass(), true, 0, req.pkey(), 0, req.alternateSl(), SA_EQ, req.pathMtu(), SA_EQ,
                req.alternatePacketRate(), SA_EQ, life - (life > 0 ? 1 : 0), 0);
    }

    /** IB_SA_EQ: the selector "exactly this value". */
    private static final int SA_EQ = 2;

    /** cm_dup_req_handler: the peer did not hear us; an MRA or a stale REJ again. */
    void duplicateReq(CmPort port, ReceivedMad r) {
        switch (state) {
            case MRA_REQ_SENT -> port.respond(r, CmAttribute.MRA, mra(CmAttribute.MESSAGE_REQ)::encode);
            case TIMEWAIT -> port.respond(r, CmAttribute.REJ, new CmRej(localId, remoteId,
                    CmAttribute.MESSAGE_OTHER, 0, CmRejectReason.STALE_CONN.code(), new byte[0], new byte[0])::encode);
            default -> {
            }
        }
    }

    /** cm_dup_rep_handler: our RTU (or MRA) was lost. */
    void duplicateRep(CmPort port, ReceivedMad r) {
        if (state == ESTABLISHED) {
            port.respond(r, CmAttribute.RTU, rtu(privateData)::encode);
        } else if (state == MRA_REP_SENT) {
            port.respond(r, CmAttribute.MRA, mra(CmAttribute.MESSAGE_REP)::encode);
        }
    }

    /** cm_rep_handler. */
    void replyReceived(CmPort port, ReceivedMad r, CmRep rep) {
        if (state != REQ_SENT && state != MRA_REQ_RCVD) {
            return;
        }
        int qpn = qpType == QpType.XRC_INI ? rep.localEecn() : rep.localQpn();
        Cm.RemoteKey key = new Cm.RemoteKey(rep.localCaGuid(), rep.localCommId() & 0xffffffffL);
        if (cm.insertRemoteId(key, this) != null) {
            return; // a duplicate REP
        }
        CmId stale = cm.insertRemoteQpn(new Cm.RemoteKey(rep.localCaGuid(), qpn), this);
        if (stale != null) {
            cm.removeRemote(this);
            cm.issueRej(port, r, CmRejectReason.STALE_CONN, CmAttribute.MESSAGE_REP);
            stale.disconnectStale();
            return;
        }
        state = REP_RCVD;
        remoteId = rep.localCommId();
        remoteQpn = qpn;
        remoteCaGuid = rep.localCaGuid();
        initiatorDepth = rep.responderResources();
        responderResources = rep.initiatorDepth();
        sqPsn = rep.startingPsn();
        rnrRetryCount = rep.rnrRetryCount();
        av = av.withTimeout(ackTimeout(rep.targetAckDelay(), av.timeout() - 1));
        cancelMsg();
        cm.deliver(this, new CmEvent.RepReceived(rep.localCaGuid(), rep.localQkey(), qpn, rep.startingPsn(),
                rep.initiatorDepth(), rep.responderResources(), rep.targetAckDelay(), rep.failoverAccepted(),
                rep.flowControl(), rep.rnrRetryCount(), rep.srq(), rep.privateData()));
    }

    /** cm_rtu_handler. */
    void readyToUseReceived(CmRtu rtu) {
        if (state != REP_SENT && state != MRA_REP_RCVD) {
            return;
        }
        state = ESTABLISHED;
        cancelMsg();
        cm.deliver(this, new CmEvent.RtuReceived(rtu.privateData()));
    }

    /** cm_mra_handler: the REQ's or REP's send waits the peer's service timeout longer. */
    void mraReceived(CmMra mra) {
        int wait = Cm.toMs(mra.serviceTimeout()) + Cm.toMs(av.timeout());
        if (state == REQ_SENT && mra.messageMraed() == CmAttribute.MESSAGE_REQ) {
            state = MRA_REQ_RCVD;
        } else if (state == REP_SENT && mra.messageMraed() == CmAttribute.MESSAGE_REP) {
            state = MRA_REP_RCVD;
        } else {
            if (state == MRA_REQ_RCVD || state == MRA_REP_RCVD) {
                av.port().counters().add(CmCounters.Group.RX_DUPLICATES, CmAttribute.MRA, 1);
            }
            return;
        }
        av.port().modify(msg, wait);
        cm.deliver(this, new CmEvent.MraReceived(mra.serviceTimeout(), mra.privateData()));
    }

    /** cm_rej_handler. */
    void rejectReceived(CmRej rej) {
        boolean stale = rej.reason() == CmRejectReason.STALE_CONN.code();
        switch (state) {
            case REQ_SENT, MRA_REQ_RCVD, REP_SENT, MRA_REP_RCVD, REQ_RCVD, MRA_REQ_SENT -> {
                cancelMsg();
                if (stale) {
                    enterTimewait();
                } else {
                    resetToIdle();
                }
            }
            case DREQ_SENT, REP_RCVD, MRA_REP_SENT, ESTABLISHED -> {
                cancelMsg();
                enterTimewait();
            }
            default -> {
                return;
            }
        }
        byte[] ari = Arrays.copyOf(rej.ari(), Math.min(rej.rejectedInfoLength(), CmRej.ARI_SIZE));
        cm.deliver(this, new CmEvent.RejReceived(rej.reason(), ari, rej.privateData()));
    }

    /** cm_dreq_handler. */
    void disconnectRequestReceived(CmPort port, ReceivedMad r, CmDreq dreq) {
        if (dreq.remoteQpn() != localQpn) {
            return;
        }
        switch (state) {
            case REP_SENT, DREQ_SENT -> cancelMsg();
            case ESTABLISHED, MRA_REP_RCVD -> {
            }
            case TIMEWAIT -> {
                port.counters().add(CmCounters.Group.RX_DUPLICATES, CmAttribute.DREQ, 1);
                port.respond(r, CmAttribute.DREP, new CmDrep(localId, remoteId, privateData)::encode);
                return;
            }
            case DREQ_RCVD -> {
                port.counters().add(CmCounters.Group.RX_DUPLICATES, CmAttribute.DREQ, 1);
                return;
            }
            default -> {
                return;
            }
        }
        state = DREQ_RCVD;
        tid = Mad.transactionId(r.message());
        cm.deliver(this, new CmEvent.DreqReceived(dreq.privateData()));
    }

    /** cm_drep_handler. */
    void disconnectReplyReceived(CmDrep drep) {
        if (state != DREQ_SENT && state != DREQ_RCVD) {
            return;
        }
        cancelMsg();
        enterTimewait();
        cm.deliver(this, new CmEvent.DrepReceived(drep.privateData()));
    }

    /** A REQ or REP found this id's peer QP reused: ib_send_cm_dreq to the stale connection. */
    void disconnectStale() {
        if (state == ESTABLISHED) {
            try {
                sendDreqLocked(new byte[0]);
            } catch (Errno e) {
                // not established after all: nothing to disconnect
            }
        }
    }

    /** cm_sidr_req_handler for a request a listener takes. */
    void sidrRequestReceived(CmPort port, ReceivedMad r, CmSidrReq req, CmId listener) {
        remoteId = req.requestId();
        serviceId = req.serviceId();
        serviceMask = ~0L;
        tid = Mad.transactionId(r.message());
        av = AddressVector.responseTo(port, r);
        state = SIDR_REQ_RCVD;
        cm.deliver(this, new CmEvent.SidrReqReceived(listener, cm.pkeyAt(port, r.pkeyIndex()), port.number(),
                req.pkey(), req.privateData()));
    }

    /** cm_sidr_rep_handler. */
    void sidrReplyReceived(CmSidrRep rep) {
        if (state != SIDR_REQ_SENT) {
            return;
        }
        state = IDLE;
        cancelMsg();
        byte[] info = Arrays.copyOf(rep.additionalInfo(),
                Math.min(rep.additionalInfoLength(), CmSidrRep.INFO_SIZE));
        cm.deliver(this, new CmEvent.SidrRepReceived(rep.status(), rep.qkey(), rep.qpn(), info, rep.privateData()));
    }

    /** cm_process_send_error: the MAD layer gave up on the send this state waits on. */
    void sendFailed(SendRequest send, SendStatus status) {
        if (send != msg || status == SendStatus.FLUSHED || destroyed) {
            return;
        }
        msg = null;
        CmEvent event;
        switch (state) {
            case REQ_SENT, MRA_REQ_RCVD -> {
                resetToIdle();
                event = new CmEvent.ReqError(status);
            }
            case REP_SENT, MRA_REP_RCVD -> {
                resetToIdle();
                event = new CmEvent.RepError(status);
            }
            case DREQ_SENT -> {
                enterTimewait();
                event = new CmEvent.DreqError(status);
            }
            case SIDR_REQ_SENT -> {
                state = IDLE;
                event = new CmEvent.SidrReqError(status);
            }
            default -> {
                return;
            }
        }
        cm.deliver(this, event);
    }

    // ---- helpers (cm.lock held) ----

    /**
     * cm_enter_timewait: out of the remote tables, TIMEWAIT for the ACK timeout
     * (cm_convert_to_ms(av.timeout)), then IDLE with a TIMEWAIT_EXIT event.
     */
    private void enterTimewait() {
        cm.removeRemote(this);
        state = TIMEWAIT;
        if (timewait != null) {
            timewait.cancel(false);
        }
        timewait = cm.schedule(this::timewaitExpired, Cm.toMs(av.timeout()));
    }

    /** cm_timewait_handler. */
    private void timewaitExpired() {
        synchronized (cm.lock()) {
            if (destroyed || state != TIMEWAIT) {
                return;
            }
            state = IDLE;
            timewait = null;
            cm.deliver(this, new CmEvent.TimewaitExit());
        }
    }

    /** cm_reset_to_idle. */
    private void resetToIdle() {
        state = IDLE;
        cm.removeRemote(this);
    }

    private void cancelMsg() {
        SendRequest s = msg;
        msg = null;
        if (s != null) {
            av.port().cancel(s);
        }
    }

    private void alive() throws Errno {
        if (destroyed) {
            throw Errno.of(Errno.EINVAL);
        }
    }

    /** cm_alloc_msg: a connection whose device was removed sends nothing (EINVAL). */
    private void portAlive() throws Errno {
        if (av == null || av.port().isClosed()) {
            throw Errno.of(Errno.EINVAL);
        }
    }

    /** A CM MAD that expects no answer, to the connection's peer. */
    private void sendNow(int attributeId, long transactionId, Consumer<byte[]> message) {
        byte[] mad = CmAttribute.mad(attributeId, transactionId);
        message.accept(mad);
        av.port().send(mad, av, 0, 0, CmPort.ID_MESSAGE);
    }

    /**
     * cm_ack_timeout: 4.096 us * 2^t covering the CA's ACK delay plus twice the packet life,
     * rounded as the kernel rounds it.
     */
    static int ackTimeout(int caAckDelay, int packetLifeTime) {
        int t = packetLifeTime + 1;
        if (t >= caAckDelay) {
            t += caAckDelay >= t - 1 ? 1 : 0;
        } else {
            t = caAckDelay + (t >= caAckDelay - 1 ? 1 : 0);
        }
        return Math.min(31, t);
    }

    private static byte[] guidBytes(long guid) {
        byte[] b = new byte[8];
        Bits.set(b, 0, 0, 64, guid);
        return b;
    }

    private static byte[] orEmpty(byte[] b) {
        return b == null ? new byte[0] : b.clone();
    }
}
