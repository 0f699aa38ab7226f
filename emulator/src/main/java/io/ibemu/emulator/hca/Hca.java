package io.ibemu.emulator.hca;

import io.ibemu.emulator.device.LocalHca;
import io.ibemu.emulator.fabric.Fabric;
import io.ibemu.emulator.fabric.Node;
import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.fabric.PortEvent;
import io.ibemu.emulator.mad.PortInfo;
import io.ibemu.kernel.Errno;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * One emulated HCA's verbs: its attributes and ports, its object pools (PDs, MRs, MWs, CQs,
 * QPs, SRQs, AHs, XRC domains), QPN and key allocation, and the verbs the uverbs ABI layer calls.
 * Every method takes the model lock ({@link DataLink#lock()}, shared by the HCAs of one fabric);
 * the data path runs in the caller's thread (postSend processes the send queue at once) or on
 * the link's timer thread (RNR and transport retries). Errors are {@link Errno} with the errno
 * the kernel (core verbs, rdmavt) returns for the verb.
 */
public final class Hca implements AutoCloseable {
    static final int MAX_QP = 16384;
    static final int MAX_QP_WR = 16383;
    static final int MAX_SGE = 96;
    static final int MAX_CQ = 0x1FFFF;
    static final int MAX_CQE = 0x2FFFF;
    static final int MAX_MR = 0xFFFF;
    static final int MAX_PD = 0xFFFF;
    static final int MAX_AH = 0xFFFF;
    static final int MAX_SRQ = 1024;
    static final int MAX_SRQ_WR = 0x1FFFF;
    static final int MAX_SRQ_SGE = 128;
    static final int MAX_RD_ATOMIC = 16;
    static final int MAX_INIT_RD_ATOMIC = 255;
    static final int MAX_MCAST_GRP = 16384;
    static final int MAX_MCAST_QP_ATTACH = 16;
    static final int MAX_INLINE = 512;
    static final long MAX_MSG = 0x80000000L;
    /** The first QPN handed out: 0 and 1 are QP0/QP1 (IBA 10.2.4.1). */
    static final int FIRST_QPN = 2;
    static final int QPN_MASK = 0xFFFFFF;

    /** IB_MR_REREG_* flags of rereg_mr. */
    public static final int REREG_TRANS = 1;
    public static final int REREG_PD = 2;
    public static final int REREG_ACCESS = 4;

    private final LocalHca local;
    private final Fabric fabric;
    private final DataLink link;
    private final Node node;
    private final Consumer<PortEvent> portListener;
    private final List<AsyncEventSink> sinks = new CopyOnWriteArrayList<>();
    final Requester requester;
    final Responder responder;
    final Completer completer;
    /** Consulted by the requester for each send completion. */
    volatile CompletionFault completionFault = CompletionFault.NONE;
    /** Consulted by the transports for each packet leaving this HCA's ports while armed. */
    volatile PacketFault packetFault = PacketFault.NONE;
    final MulticastGroups multicast = new MulticastGroups();
    private final MemoryRegistration registration = new MemoryRegistration(this);
    private final QpModify qpModify = new QpModify(this);

    private final Map<Integer, QueuePair> qps = new HashMap<>();
    private final Map<Integer, SharedReceiveQueue> srqs = new HashMap<>();
    private int pds;
    private int cqs;
    private int ahs;
    private int xrcds;
    private int nextQpn = FIRST_QPN;
    private int nextSrqNum = 1;

    /**
     * The model of {@code local}'s HCA on {@code fabric}, reached by packets through {@code link}
     * (one link per fabric, shared by all local HCAs). Listens to the fabric's port events of
     * this node and reports them as asynchronous events.
     */
    public Hca(LocalHca local, Fabric fabric, DataLink link) {
        this.local = local;
        this.fabric = fabric;
        this.link = link;
        this.node = local.node();
        this.requester = new Requester(this);
        this.responder = new Responder(this);
        this.completer = new Completer(this);
        // PortEvent listeners run under the fabric lock: report from the timer thread instead
        this.portListener = e -> {
            if (e.port().node() == node) {
                AsyncEvent.Type t = portEventType(e.kind());
                if (t != null) {
                    int port = e.port().number();
                    link.execute(() -> fire(new AsyncEvent(t, port)));
                }
            }
        };
        fabric.addListener(portListener);
        link.attach(this);
    }

    public LocalHca local() {
        return local;
    }

    public DataLink link() {
        return link;
    }

    /** The model lock (the link's): every verbs object is guarded by it. */
    public Object lock() {
        return link.lock();
    }

    /** What a fault rule makes of each send completion (CompletionFault.NONE: nothing). */
    public void completionFault(CompletionFault fault) {
        this.completionFault = fault;
    }

    /** What a fault rule makes of each packet leaving this HCA (PacketFault.NONE: nothing). */
    public void packetFault(PacketFault fault) {
        this.packetFault = fault;
    }

    /**
     * Raises {@code type} as the hardware would report it, for fault injection: a QP event for QP
     * {@code qpn} (an affiliated error first moves the QP to ERR and flushes it, IBA 11.6.3.1), a
     * port or device event for {@code port}.
     *
     * @throws IllegalArgumentException when there is no such QP or port, or the type is about a CQ or SRQ
     */
    public void raise(AsyncEvent.Type type, int qpn, int port) {
        synchronized (lock()) {
            switch (type) {
                case QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, PATH_MIG_ERR, PATH_MIG, COMM_EST, QP_LAST_WQE_REACHED -> {
                    QueuePair qp = qps.get(qpn);
                    if (qp == null) {
                        throw new IllegalArgumentException(String.format("%s has no QP 0x%x", local.name(), qpn));
                    }
                    if (type == AsyncEvent.Type.QP_FATAL || type == AsyncEvent.Type.QP_REQ_ERR
                            || type == AsyncEvent.Type.QP_ACCESS_ERR) {
                        completer.error(qp);
                    }
                    fire(new AsyncEvent(type, qp));
                }
                case PORT_ACTIVE, PORT_ERR, LID_CHANGE, PKEY_CHANGE, SM_CHANGE, CLIENT_REREGISTER, GID_CHANGE,
                        DEVICE_FATAL -> {
                    if (port < 1 || port > node.portCount()) {
                        throw new IllegalArgumentException(local.name() + " has no port " + port);
                    }
                    fire(new AsyncEvent(type, port));
                }
                default -> throw new IllegalArgumentException(type + " is about a CQ or an SRQ: not raised by rule yet");
            }
        }
    }

    /** Adds a listener for this HCA's asynchronous events (see {@link AsyncEventSink} for its rules). */
    public void addEventSink(AsyncEventSink sink) {
        sinks.add(sink);
    }

    public void removeEventSink(AsyncEventSink sink) {
        sinks.remove(sink);
    }

    void fire(AsyncEvent event) {
        for (AsyncEventSink s : sinks) {
            s.event(event);
        }
    }

    private static AsyncEvent.Type portEventType(PortEvent.Kind kind) {
        return switch (kind) {
            case PORT_ACTIVE -> AsyncEvent.Type.PORT_ACTIVE;
            case PORT_ERROR -> AsyncEvent.Type.PORT_ERR;
            case LID_CHANGE -> AsyncEvent.Type.LID_CHANGE;
            case PKEY_CHANGE -> AsyncEvent.Type.PKEY_CHANGE;
            case SM_CHANGE -> AsyncEvent.Type.SM_CHANGE;
            case CLIENT_REREGISTER -> AsyncEvent.Type.CLIENT_REREGISTER;
            case GID_CHANGE -> AsyncEvent.Type.GID_CHANGE;
            default -> null;
        };
    }

    // ---- device and ports ----

    /** query_device. */
    public DeviceAttributes attributes() {
        int caps = DeviceAttributes.CAP_BAD_PKEY_CNTR | DeviceAttributes.CAP_BAD_QKEY_CNTR
                | DeviceAttributes.CAP_SHUTDOWN_PORT | DeviceAttributes.CAP_SYS_IMAGE_GUID
                | DeviceAttributes.CAP_RC_RNR_NAK_GEN | DeviceAttributes.CAP_PORT_ACTIVE_EVENT
                | DeviceAttributes.CAP_SRQ_RESIZE | DeviceAttributes.CAP_XRC;
        return new DeviceAttributes(firmwareVersion(local.identity().fwVersion()), node.guid(), node.systemImageGuid(),
                -1L, 4096, node.vendorId(), node.deviceId(), hardwareVersion(local.identity().hwRevision()), MAX_QP, MAX_QP_WR, caps, MAX_SGE,
                MAX_SGE, MAX_CQ, MAX_CQE, MAX_MR, MAX_PD, MAX_RD_ATOMIC, 0, MAX_RD_ATOMIC * MAX_QP,
                MAX_INIT_RD_ATOMIC, 0, DeviceAttributes.ATOMIC_HCA, 0, 0, 0, 0, 0, MAX_MCAST_GRP,
                MAX_MCAST_QP_ATTACH, MAX_MCAST_QP_ATTACH * MAX_MCAST_GRP, MAX_AH, 0, 0, MAX_SRQ, MAX_SRQ_WR,
                MAX_SRQ_SGE, node.port(1).pkeys().length, 0, node.portCount(), MAX_INLINE);
    }

    /** Completion vectors (the context's num_comp_vectors): one. */
    public int numCompVectors() {
        return 1;
    }

    /** "a.b.c" as the u64 fw_ver (a << 32 | b << 16 | c), 0 when not numeric. */
    private static long firmwareVersion(String v) {
        String[] parts = v.split("\\.");
        long out = 0;
        try {
            for (int i = 0; i < 3; i++) {
                out = out << 16 | (i < parts.length ? Long.parseLong(parts[i]) & 0xFFFF : 0);
            }
            return out;
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** hw_ver as sysfs hw_rev prints it (hw_rev_show: "%x"): the identity's hw_rev read back in hex. */
    private int hardwareVersion(String hwRevision) {
        try {
            return Integer.parseUnsignedInt(hwRevision.strip(), 16);
        } catch (NumberFormatException e) {
            return node.revision();
        }
    }

    /** query_port, live from the fabric. @throws Errno EINVAL for a port the HCA does not have */
    public PortAttributes port(int n) throws Errno {
        if (n < 1 || n > node.portCount()) {
            throw Errno.of(Errno.EINVAL);
        }
        Port p = node.port(n);
        PortInfo pi = p.portInfo();
        long[] guids = p.guids();
        byte[][] gids = new byte[guids.length][];
        for (int i = 0; i < guids.length; i++) {
            gids[i] = gid(p.subnetPrefix(), guids[i]);
        }
        int[] pkeys = p.pkeys();
        return new PortAttributes(pi.portState(), pi.mtuCap(), activeMtu(p), gids.length, pi.capabilityMask(), MAX_MSG,
                pi.pKeyViolations(), pi.qKeyViolations(), pkeys.length, pi.lid(), pi.masterSmLid(), pi.lmc(),
                pi.vlCap(), pi.masterSmSl(), pi.subnetTimeout(), pi.initTypeReply(), pi.linkWidthActive(),
                1 << p.activeSpeed().ordinal(), pi.portPhysicalState(), PortAttributes.LINK_LAYER_INFINIBAND,
                pi.capabilityMask2(), gids, pkeys);
    }

    /** The MTU code a port runs: its MTUCap, lowered to what the neighbour takes (NeighborMTU). */
    static int activeMtu(Port p) {
        PortInfo pi = p.portInfo();
        return Math.min(pi.mtuCap(), pi.neighborMtu() == 0 ? pi.mtuCap() : pi.neighborMtu());
    }

    static byte[] gid(long prefix, long guid) {
        byte[] g = new byte[16];
        for (int i = 0; i < 8; i++) {
            g[i] = (byte) (prefix >>> (56 - 8 * i));
            g[8 + i] = (byte) (guid >>> (56 - 8 * i));
        }
        return g;
    }

    Port fabricPort(int n) {
        return node.port(n);
    }

    boolean hasPort(int n) {
        return n >= 1 && n <= node.portCount();
    }

    // ---- protection domains ----

    /** alloc_pd. @throws Errno ENOMEM beyond max_pd */
    public ProtectionDomain allocPd(VerbsOwner owner) throws Errno {
        synchronized (lock()) {
            if (pds >= MAX_PD) {
                throw Errno.of(Errno.ENOMEM);
            }
            pds++;
            return new ProtectionDomain(this, owner);
        }
    }

    /** dealloc_pd. @throws Errno EBUSY while MRs, MWs, QPs, SRQs or AHs use it */
    public void dealloc(ProtectionDomain pd) throws Errno {
        synchronized (lock()) {
            live(pd);
            if (pd.users > 0) {
                throw Errno.of(Errno.EBUSY);
            }
            pd.destroyed = true;
            pds--;
        }
    }

    void live(ProtectionDomain pd) throws Errno {
        if (pd == null || pd.destroyed || pd.hca() != this) {
            throw Errno.of(Errno.EINVAL);
        }
    }

    // ---- memory regions and windows ----

    /**
     * reg_mr: registers {@code [start, start + length)} of the owner's memory as HCA virtual
     * addresses from {@code iova} ({@link MemoryRegistration}).
     *
     * @throws Errno EINVAL: length 0, unknown access bits, remote write/atomic without local
     *     write, start and iova in different page offsets; EOPNOTSUPP: on-demand paging; EFAULT:
     *     a page of the range not mapped with the access asked (ib_umem_get); ENOMEM: beyond the
     *     owner's RLIMIT_MEMLOCK or max_mr
     */
    public MemoryRegion registerMr(ProtectionDomain pd, long start, long length, long iova, int access,
            HostMemory memory) throws Errno {
        return registration.register(pd, start, length, iova, access, memory);
    }

    /**
     * rereg_mr: changes the translation ({@link #REREG_TRANS}: start, length, iova, memory), the
     * PD ({@link #REREG_PD}) and/or the access ({@link #REREG_ACCESS}) of a region, keeping its
     * keys. Returns the region that replaces {@code mr} (the old object is dead).
     *
     * @throws Errno EINVAL: no or unknown flags, bad values as for reg_mr; EFAULT, ENOMEM as reg_mr
     */
    public MemoryRegion reregisterMr(MemoryRegion mr, int flags, ProtectionDomain pd, long start, long length,
            long iova, int access, HostMemory memory) throws Errno {
        return registration.reregister(mr, flags, pd, start, length, iova, access, memory);
    }

    /** dereg_mr. @throws Errno EBUSY while type-2 windows are bound to it; EINVAL if not registered */
    public void deregister(MemoryRegion mr) throws Errno {
        registration.deregister(mr);
    }

    /** Bytes of registered memory charged to {@code pid}. */
    public long pinnedBytes(int pid) {
        return registration.pinnedBytes(pid);
    }

    /** The live region with key {@code key}; null when none (lkey/rkey lookup of the data path). */
    MemoryRegion region(int key) {
        return registration.region(key);
    }

    /** Under the model lock: a BIND_MW's outcome (a {@link WcStatus}). */
    int bindWindow(QueuePair qp, MwBind bind) {
        return bind == null ? WcStatus.MW_BIND_ERR : registration.bind(qp, bind);
    }

    /** Under the model lock: LOCAL_INV or SEND_WITH_INV of {@code rkey}; false when refused. */
    boolean invalidateWindow(QueuePair qp, int rkey) {
        return registration.invalidate(qp, rkey);
    }

    /** Under the model lock: remote access through an MR's or a window's rkey; null when refused. */
    MemoryRegistration.Target remote(QueuePair qp, ProtectionDomain pd, int rkey, long va, long len, int access) {
        return registration.remote(qp, pd, rkey, va, len, access);
    }

    /** alloc_mw. @throws Errno EINVAL for a type other than 1 or 2 */
    public MemoryWindow allocMw(ProtectionDomain pd, int type) throws Errno {
        return registration.allocMw(pd, type);
    }

    /** dealloc_mw. @throws Errno EINVAL if not allocated */
    public void dealloc(MemoryWindow mw) throws Errno {
        registration.dealloc(mw);
    }

    // ---- completion queues ----

    /**
     * create_cq with {@code cqe} entries (granted as asked, as rdmavt does), completion events to
     * {@code onEvent} (null: none).
     *
     * @throws Errno EINVAL: cqe below 1 or above max_cqe, comp vector out of range; ENOMEM beyond max_cq
     */
    public CompletionQueue createCq(VerbsOwner owner, int cqe, int compVector, CompletionListener onEvent)
            throws Errno {
        synchronized (lock()) {
            if (cqe < 1 || cqe > MAX_CQE || compVector < 0 || compVector >= numCompVectors()) {
                throw Errno.of(Errno.EINVAL);
            }
            if (cqs >= MAX_CQ) {
                throw Errno.of(Errno.ENOMEM);
            }
            cqs++;
            return new CompletionQueue(this, owner, cqe, compVector, onEvent);
        }
    }

    /** resize_cq. @throws Errno EINVAL: below 1, above max_cqe, or fewer than the completions waiting */
    public void resize(CompletionQueue cq, int cqe) throws Errno {
        synchronized (lock()) {
            live(cq);
            if (cqe < 1 || cqe > MAX_CQE || cqe < cq.outstanding()) {
                throw Errno.of(Errno.EINVAL);
            }
            cq.resize(cqe);
        }
    }

    /**
     * A provider layer's ring becomes {@code cq}'s memory (at create_cq, or at resize_cq with its
     * new size): the completions waiting move into it, as rvt_resize_cq copies them.
     */
    public void shareCompletionRing(CompletionQueue cq, CompletionRing ring) {
        synchronized (lock()) {
            cq.useRing(ring);
        }
    }

    /** A provider layer's ring becomes the receive queue of {@code qp} (create_qp): WRs posted move into it. */
    public void shareReceiveRing(QueuePair qp, ReceiveRing ring) {
        synchronized (lock()) {
            qp.rq = move(qp.rq, ring);
        }
    }

    /**
     * A provider layer's ring becomes the send queue of {@code qp} (create_qp): from now on
     * post_send is its doorbell and the WRs come from the ring.
     */
    public void shareSendRing(QueuePair qp, SendRing ring) {
        synchronized (lock()) {
            qp.sendRing = ring;
        }
    }

    /** As {@link #shareReceiveRing(QueuePair, ReceiveRing)} for an SRQ (create_srq, modify_srq's new max_wr). */
    public void shareReceiveRing(SharedReceiveQueue srq, ReceiveRing ring) {
        synchronized (lock()) {
            srq.queue = move(srq.queue, ring);
        }
    }

    private static ReceiveRing move(ReceiveRing from, ReceiveRing to) {
        for (ReceiveWorkRequest r = from.peek(); r != null; r = from.peek()) {
            from.consume();
            to.offer(r);
        }
        return to;
    }

    /** destroy_cq. @throws Errno EBUSY while a QP or SRQ uses it */
    public void destroy(CompletionQueue cq) throws Errno {
        synchronized (lock()) {
            live(cq);
            if (cq.users > 0) {
                throw Errno.of(Errno.EBUSY);
            }
            cq.destroyed = true;
            cqs--;
        }
    }

    private void live(CompletionQueue cq) throws Errno {
        if (cq == null || cq.destroyed || cq.hca() != this) {
            throw Errno.of(Errno.EINVAL);
        }
    }

    // ---- shared receive queues ----

    /**
     * create_srq / create_xsrq. An XRC SRQ needs {@code xrcd} and {@code cq}; a basic one ignores them.
     *
     * @throws Errno EINVAL: max_wr or max_sge 0 or above the device's, XRC without domain or CQ;
     *     EOPNOTSUPP: tag matching; ENOMEM beyond max_srq
     */
    public SharedReceiveQueue createSrq(ProtectionDomain pd, int maxWr, int maxSge, int limit, SrqType type,
            Xrcd xrcd, CompletionQueue cq) throws Errno {
        synchronized (lock()) {
            live(pd);
            if (type == SrqType.TAG_MATCHING) {
                throw Errno.of(Errno.EOPNOTSUPP);
            }
            boolean xrc = type == SrqType.XRC;
            if (maxWr < 1 || maxWr > MAX_SRQ_WR || maxSge < 1 || maxSge > MAX_SRQ_SGE || limit < 0
                    || xrc && (xrcd == null || xrcd.closed || cq == null)) {
                throw Errno.of(Errno.EINVAL);
            }
            if (xrc) {
                live(cq);
            }
            if (srqs.size() >= MAX_SRQ) {
                throw Errno.of(Errno.ENOMEM);
            }
            int num = nextSrqNum++;
            SharedReceiveQueue srq = new SharedReceiveQueue(pd, type, maxWr, maxSge, limit, xrc ? xrcd : null,
                    xrc ? cq : null, num);
            srqs.put(num, srq);
            pd.users++;
            if (xrc) {
                xrcd.users++;
                cq.users++;
            }
            return srq;
        }
    }

    /**
     * modify_srq: {@link SrqAttributes#MASK_MAX_WR} resizes, {@link SrqAttributes#MASK_LIMIT} arms the limit.
     *
     * @throws Errno EINVAL: max_wr 0, above the device's or below the WRs queued, the limit not
     *     below max_wr (rvt_modify_srq)
     */
    public void modify(SharedReceiveQueue srq, int maxWr, int limit, int mask) throws Errno {
        synchronized (lock()) {
            live(srq);
            if ((mask & ~(SrqAttributes.MASK_MAX_WR | SrqAttributes.MASK_LIMIT)) != 0) {
                throw Errno.of(Errno.EINVAL);
            }
            boolean resize = (mask & SrqAttributes.MASK_MAX_WR) != 0;
            boolean arm = (mask & SrqAttributes.MASK_LIMIT) != 0;
            int newMax = resize ? maxWr : srq.maxWr;
            int newLimit = arm ? limit : srq.limit;
            if (resize && (maxWr < 1 || maxWr > MAX_SRQ_WR || maxWr < srq.queue.size() || newLimit >= maxWr)
                    || arm && (limit < 0 || limit > newMax)) {
                throw Errno.of(Errno.EINVAL);
            }
            srq.maxWr = newMax;
            srq.limit = newLimit;
            if (srq.queue instanceof PrivateReceiveRing own) {
                own.capacity(newMax);
            }
        }
    }

    /** destroy_srq. @throws Errno EBUSY while QPs use it */
    public void destroy(SharedReceiveQueue srq) throws Errno {
        synchronized (lock()) {
            live(srq);
            if (srq.users > 0) {
                throw Errno.of(Errno.EBUSY);
            }
            srq.destroyed = true;
            srqs.remove(srq.srqNum());
            srq.pd().users--;
            if (srq.xrcd() != null) {
                srq.xrcd().users--;
                srq.cq().users--;
            }
        }
    }

    private void live(SharedReceiveQueue srq) throws Errno {
        if (srq == null || srq.destroyed || srq.pd().hca() != this) {
            throw Errno.of(Errno.EINVAL);
        }
    }

    SharedReceiveQueue srq(int num) {
        return srqs.get(num);
    }

    // ---- queue pairs ----

    /**
     * create_qp. Returns the QP with the capabilities granted (as asked; receive capabilities 0
     * with an SRQ or for XRC types).
     *
     * @throws Errno EINVAL: SMI/GSI type, a missing or foreign CQ, SRQ on an XRC initiator, an
     *     XRC target without domain, capabilities above the device's; EOPNOTSUPP: raw packet;
     *     ENOMEM beyond max_qp
     */
    public QueuePair createQp(ProtectionDomain pd, QpInitAttributes init) throws Errno {
        synchronized (lock()) {
            QpType type = init.type();
            if (type == QpType.RAW_PACKET) {
                throw Errno.of(Errno.EOPNOTSUPP);
            }
            if (type == QpType.SMI || type == QpType.GSI) {
                throw Errno.of(Errno.EINVAL);
            }
            boolean target = type == QpType.XRC_TGT;
            if (!target) {
                live(pd);
                live(init.sendCq());
            }
            if (type != QpType.XRC_INI && !target) {
                live(init.recvCq());
            }
            if (target && (init.xrcd() == null || init.xrcd().closed || init.xrcd().hca() != this)
                    || type == QpType.XRC_INI && init.srq() != null) {
                throw Errno.of(Errno.EINVAL);
            }
            if (init.srq() != null) {
                live(init.srq());
            }
            QpCapabilities cap = grant(init);
            if (qps.size() >= MAX_QP) {
                throw Errno.of(Errno.ENOMEM);
            }
            QueuePair qp = new QueuePair(this, target ? null : pd, init, allocateQpn(), cap);
            qps.put(qp.qpNum(), qp);
            if (!target) {
                pd.users++;
                init.sendCq().users++;
            }
            if (init.recvCq() != null && type != QpType.XRC_INI && !target) {
                init.recvCq().users++;
            }
            if (init.srq() != null) {
                init.srq().users++;
            }
            if (target) {
                init.xrcd().users++;
            }
            return qp;
        }
    }

    private static QpCapabilities grant(QpInitAttributes init) throws Errno {
        QpCapabilities c = init.cap();
        boolean noRecv = init.srq() != null || init.type() == QpType.XRC_INI || init.type() == QpType.XRC_TGT;
        boolean noSend = init.type() == QpType.XRC_TGT;
        if (c == null || c.maxSendWr() < 0 || c.maxRecvWr() < 0 || c.maxSendSge() < 0 || c.maxRecvSge() < 0
                || c.maxInlineData() < 0 || !noSend && (c.maxSendWr() > MAX_QP_WR || c.maxSendSge() > MAX_SGE
                || c.maxInlineData() > MAX_INLINE)
                || !noRecv && (c.maxRecvWr() > MAX_QP_WR || c.maxRecvSge() > MAX_SGE)) {
            throw Errno.of(Errno.EINVAL);
        }
        return new QpCapabilities(noSend ? 0 : c.maxSendWr(), noRecv ? 0 : c.maxRecvWr(),
                noSend ? 0 : c.maxSendSge(), noRecv ? 0 : c.maxRecvSge(), noSend ? 0 : c.maxInlineData());
    }

    private int allocateQpn() {
        while (true) {
            int qpn = nextQpn;
            nextQpn = nextQpn >= QPN_MASK ? FIRST_QPN : nextQpn + 1;
            if (!qps.containsKey(qpn)) {
                return qpn;
            }
        }
    }

    /** The live QP numbered {@code qpn}; null when none. */
    QueuePair qp(int qpn) {
        return qps.get(qpn);
    }

    /** open_qp: an XRC target QP of {@code xrcd} by number. @throws Errno EINVAL when the domain has none */
    public QueuePair openQp(Xrcd xrcd, int qpn) throws Errno {
        synchronized (lock()) {
            QueuePair qp = qps.get(qpn);
            if (xrcd == null || qp == null || qp.type() != QpType.XRC_TGT || qp.xrcd() != xrcd) {
                throw Errno.of(Errno.EINVAL);
            }
            return qp;
        }
    }

    /**
     * modify_qp: applies the attributes {@code mask} selects, moving the QP to {@code
     * attrs.qpState()} when {@link QpAttributeMask#STATE} is set.
     *
     * @throws Errno EINVAL: a transition or mask {@link QpTransitions#isOk} refuses, or a bad value
     *     (port, P_Key index, path MTU above the port's, multicast DLID, SL above 15, RD atomic
     *     depths above the device's, timer and retry fields beyond their bits)
     */
    public void modify(QueuePair qp, QpAttributes attrs, int mask) throws Errno {
        synchronized (lock()) {
            live(qp);
            qpModify.apply(qp, attrs, mask);
        }
    }

    /** A QP in SQD has no begun WQE left: the Send Queue Drained event, when modify_qp asked for it. */
    void sqDrained(QueuePair qp) {
        qp.sqDraining = false;
        if (qp.attrs.enSqdAsyncNotify()) {
            fire(new AsyncEvent(AsyncEvent.Type.SQ_DRAINED, qp));
        }
    }

    /** query_qp: every attribute, the state as it is now. */
    public QpAttributes query(QueuePair qp) throws Errno {
        synchronized (lock()) {
            live(qp);
            return qp.attrs.toBuilder().sqDraining(qp.sqDraining).build();
        }
    }

    /**
     * destroy_qp: the QP's queued work requests go without completions.
     *
     * @throws Errno EBUSY while attached to multicast groups (ib_qp usecnt; uverbs detaches first
     *     on close: {@link #release})
     */
    public void destroy(QueuePair qp) throws Errno {
        synchronized (lock()) {
            live(qp);
            if (qp.multicastAttachments > 0) {
                throw Errno.of(Errno.EBUSY);
            }
            requester.cancelRetry(qp);
            qp.destroyed = true;
            qps.remove(qp.qpNum());
            if (qp.pd() != null) {
                qp.pd().users--;
            }
            if (qp.sendCq() != null && qp.type() != QpType.XRC_TGT) {
                qp.sendCq().users--;
            }
            if (qp.recvCq() != null && qp.type() != QpType.XRC_INI && qp.type() != QpType.XRC_TGT) {
                qp.recvCq().users--;
            }
            if (qp.srq() != null) {
                qp.srq().users--;
            }
            if (qp.type() == QpType.XRC_TGT) {
                qp.xrcd().users--;
            }
        }
    }

    /** The close path (uverbs_free_qp): detaches every multicast group, then destroys. */
    public void release(QueuePair qp) throws Errno {
        synchronized (lock()) {
            live(qp);
            multicast.detachAll(qp);
            qp.multicastAttachments = 0;
            destroy(qp);
        }
    }

    private void live(QueuePair qp) throws Errno {
        if (qp == null || qp.destroyed || qp.hca() != this) {
            throw Errno.of(Errno.EINVAL);
        }
    }

    /**
     * post_send: queues the work requests and runs the send queue at once in the caller's thread
     * (completions on both sides are in their CQs when this returns, unless a WR waits for an RNR
     * or transport retry).
     *
     * @throws PostError EINVAL: QP state (RESET, INIT, RTR), an opcode the QP type lacks, more
     *     SGEs than max_send_sge, inline data above max_inline_data, UD without AH; ENOMEM: send
     *     queue full. The WRs before the bad one are posted and run.
     */
    public void postSend(QueuePair qp, List<SendWorkRequest> wrs) throws PostError {
        synchronized (lock()) {
            try {
                requester.post(qp, wrs);
            } finally {
                if (!qp.destroyed) {
                    requester.drain(qp);
                }
            }
        }
    }

    /**
     * post_recv. In ERR a posted WR completes at once with WR_FLUSH_ERR.
     *
     * @throws PostError EINVAL: QP in RESET, QP with an SRQ, more SGEs than max_recv_sge;
     *     ENOMEM: receive queue full
     */
    public void postRecv(QueuePair qp, List<ReceiveWorkRequest> wrs) throws PostError {
        synchronized (lock()) {
            if (qp.destroyed || qp.srq() != null || !qp.currentState().postRecvOk()
                    || qp.type() == QpType.XRC_INI || qp.type() == QpType.XRC_TGT) {
                throw new PostError(Errno.EINVAL, 0);
            }
            for (int i = 0; i < wrs.size(); i++) {
                ReceiveWorkRequest r = wrs.get(i);
                if (r.sgList().size() > qp.capabilities().maxRecvSge()) {
                    throw new PostError(Errno.EINVAL, i);
                }
                if (qp.currentState() == QpState.ERR) {
                    completer.flushReceive(qp, r);
                } else if (!qp.rq.offer(r)) {
                    throw new PostError(Errno.ENOMEM, i);
                }
            }
        }
    }

    /** post_srq_recv. @throws PostError EINVAL: more SGEs than max_sge; ENOMEM: SRQ full */
    public void postSrqRecv(SharedReceiveQueue srq, List<ReceiveWorkRequest> wrs) throws PostError {
        synchronized (lock()) {
            if (srq.destroyed) {
                throw new PostError(Errno.EINVAL, 0);
            }
            for (int i = 0; i < wrs.size(); i++) {
                ReceiveWorkRequest r = wrs.get(i);
                if (r.sgList().size() > srq.maxSge) {
                    throw new PostError(Errno.EINVAL, i);
                }
                if (!srq.queue.offer(r)) {
                    throw new PostError(Errno.ENOMEM, i);
                }
            }
        }
    }

    // ---- address handles ----

    /**
     * create_ah.
     *
     * @throws Errno EINVAL: a port the HCA lacks, SL above 15, DLID 0, a multicast DLID without GRH,
     *     a source GID index beyond the port's table; ENOMEM beyond max_ah
     */
    public AddressHandle createAh(ProtectionDomain pd, AhAttributes attrs) throws Errno {
        synchronized (lock()) {
            live(pd);
            boolean multicastLid = attrs.dlid() >= 0xC000 && attrs.dlid() != 0xFFFF;
            if (!hasPort(attrs.portNum()) || attrs.sl() < 0 || attrs.sl() > 15 || attrs.dlid() <= 0
                    || attrs.dlid() > 0xFFFF || multicastLid && !attrs.isGlobal()
                    || attrs.isGlobal() && (attrs.grh().sgidIndex() < 0
                            || attrs.grh().sgidIndex() >= fabricPort(attrs.portNum()).guids().length)) {
                throw Errno.of(Errno.EINVAL);
            }
            if (ahs >= MAX_AH) {
                throw Errno.of(Errno.ENOMEM);
            }
            ahs++;
            pd.users++;
            return new AddressHandle(pd, attrs);
        }
    }

    /** destroy_ah. */
    public void destroy(AddressHandle ah) throws Errno {
        synchronized (lock()) {
            live(ah.pd());
            ahs--;
            ah.pd().users--;
        }
    }

    // ---- multicast ----

    /**
     * attach_mcast (ib_attach_mcast, rvt_attach_mcast): attaching twice is accepted.
     *
     * @throws Errno EINVAL: not a UD QP, not a multicast GID (ff..), MLID outside 0xC000..0xFFFE;
     *     ENOMEM: the group already has max_mcast_qp_attach QPs
     */
    public void attachMulticast(QueuePair qp, byte[] gid, int mlid) throws Errno {
        synchronized (lock()) {
            live(qp);
            checkMulticast(qp, gid, mlid);
            if (multicast.members(gid, mlid) >= MAX_MCAST_QP_ATTACH) {
                throw Errno.of(Errno.ENOMEM);
            }
            if (multicast.attach(qp, gid, mlid)) {
                qp.multicastAttachments++;
            }
        }
    }

    /** detach_mcast. @throws Errno EINVAL as attach, or when the QP is not attached to the group */
    public void detachMulticast(QueuePair qp, byte[] gid, int mlid) throws Errno {
        synchronized (lock()) {
            live(qp);
            checkMulticast(qp, gid, mlid);
            if (!multicast.detach(qp, gid, mlid)) {
                throw Errno.of(Errno.EINVAL);
            }
            qp.multicastAttachments--;
        }
    }

    private static void checkMulticast(QueuePair qp, byte[] gid, int mlid) throws Errno {
        if (qp.type() != QpType.UD || gid == null || gid.length != 16 || (gid[0] & 0xFF) != 0xFF
                || mlid < 0xC000 || mlid > 0xFFFE) {
            throw Errno.of(Errno.EINVAL);
        }
    }

    // ---- XRC domains ----

    /** open_xrcd (a new domain; sharing one by inode is the ABI layer's business). */
    public Xrcd openXrcd(VerbsOwner owner) {
        synchronized (lock()) {
            xrcds++;
            return new Xrcd(this, owner);
        }
    }

    /** close_xrcd. @throws Errno EBUSY while XRC SRQs or target QPs use it */
    public void close(Xrcd xrcd) throws Errno {
        synchronized (lock()) {
            if (xrcd.closed || xrcd.hca() != this) {
                throw Errno.of(Errno.EINVAL);
            }
            if (xrcd.users > 0) {
                throw Errno.of(Errno.EBUSY);
            }
            xrcd.closed = true;
            xrcds--;
        }
    }

    /** Live objects by kind, for {@code ibemu ctl}: pd, mr, mw, cq, qp, srq, ah, xrcd. */
    public Map<String, Integer> objectCounts() {
        synchronized (lock()) {
            Map<String, Integer> m = new LinkedHashMap<>();
            m.put("pd", pds);
            m.put("mr", registration.regions());
            m.put("mw", registration.windows());
            m.put("cq", cqs);
            m.put("qp", qps.size());
            m.put("srq", srqs.size());
            m.put("ah", ahs);
            m.put("xrcd", xrcds);
            return m;
        }
    }

    /** Stops listening to the fabric and leaves the link; objects are dropped with the model. */
    @Override
    public void close() {
        fabric.removeListener(portListener);
        link.detach(this);
    }
}
