package io.ibemu.emulator.rdmacm;

import io.ibemu.emulator.cm.CmEvent;
import io.ibemu.emulator.cm.CmId;
import io.ibemu.emulator.cm.CmRejectReason;
import io.ibemu.emulator.cm.CmReplyParam;
import io.ibemu.emulator.cm.CmRequestParam;
import io.ibemu.emulator.cm.QpAttributeChange;
import io.ibemu.emulator.cm.SidrReplyParam;
import io.ibemu.emulator.cm.SidrRequestParam;
import io.ibemu.emulator.cm.SidrStatus;
import io.ibemu.emulator.device.LocalHca;
import io.ibemu.emulator.hca.Hca;
import io.ibemu.emulator.hca.QpAttributeMask;
import io.ibemu.emulator.hca.QpAttributes;
import io.ibemu.emulator.hca.QpState;
import io.ibemu.emulator.hca.QpType;
import io.ibemu.emulator.ipoib.Ipoib;
import io.ibemu.emulator.mad.McMemberRecord;
import io.ibemu.emulator.mad.PathRecord;
import io.ibemu.emulator.sa.SaClient;
import io.ibemu.kernel.Errno;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * One RDMA CM id ({@code struct rdma_id_private} of cma.c): its port space and QP type, its
 * state, its source and destination addresses, the device port it is bound to, and the handler
 * its events go to (ucma's context). State changes follow cma_comp_exch: a command finding the
 * id in another state than it needs is EINVAL. Address resolution ends on the RDMA CM's work
 * queue, which reports ADDR_RESOLVED or ADDR_ERROR.
 */
final class CmaId {
    /** RDMA_IB_IP_PS_MASK and the service ids of the IP port spaces on AF_IB (rdma_cm.h). */
    static final long IB_IP_PS_MASK = 0xFFFFFFFFFFFF0000L;
    static final long IB_IP_PS_TCP = 0x0000000001060000L;
    static final long IB_IP_PS_UDP = 0x0000000001110000L;
    static final long IB_IP_PS_IB = 0x00000000013F0000L;
    private static final java.util.Random RANDOM = new java.security.SecureRandom();
    /** IB_CM_REQ/REP/REJ_PRIVATE_DATA_SIZE. */
    static final int REQ_PRIVATE = 92, REP_PRIVATE = 196, REJ_PRIVATE = 148;
    /** CMA_CM_RESPONSE_TIMEOUT, CMA_MAX_CM_RETRIES, CMA_CM_MRA_SETTING's service timeout. */
    private static final int CM_RESPONSE_TIMEOUT = 20, MAX_CM_RETRIES = 15, MRA_SERVICE_TIMEOUT = 24;
    /** How often an unresolved neighbour is looked at again while its resolution runs. */
    private static final long NEIGHBOUR_RETRY_MS = 10;

    /** What the id's owner does with its events (the event_handler given to rdma_create_id). */
    @FunctionalInterface
    interface Handler {
        /** False when the owner refuses the event (a CONNECT_REQUEST beyond the backlog). */
        boolean event(CmaId id, CmaEvent event);
    }

    final RdmaCm cm;
    final PortSpace ps;
    final int qpType;
    /** Lookups in the namespace the id was made in; the id holds that namespace until destroyed. */
    private final AddressResolver addresses;
    private volatile Handler handler;
    // guarded by this
    private CmaState state = CmaState.IDLE;
    private SockAddr source;
    private SockAddr destination;
    private CmaDevice device;
    /** dev_addr.bound_dev_if: the interface a bind translated through; a failed bind keeps it. */
    private int boundInterface;
    private PortSpace boundSpace;
    private int boundPort = -1;
    private boolean reuseAddr;
    private boolean afOnly;
    private int tos = -1;
    private int ackTimeout = -1;
    private int resolution; // a new resolution makes the late answers of an older one stale
    private PathRecord path;
    /** cm_id.ib: the IB CM id of a connection (or of a listen on the bound device). */
    private CmId ibId;
    /** A listen on every device: one IB CM id per HCA (cma_listen_on_all's per-device children). */
    private final List<CmId> listenIds = new ArrayList<>();
    private int qpNum;
    private boolean srq;
    /** The starting PSN this side announces (id_priv->seq_num: random, 24 bits). */
    private final int seqNum = RANDOM.nextInt() & 0xffffff;

    CmaId(RdmaCm cm, PortSpace ps, int qpType, AddressResolver addresses, Handler handler) {
        this.cm = cm;
        this.ps = ps;
        this.qpType = qpType;
        this.addresses = addresses;
        this.handler = handler;
        addresses.net().retain();
        cm.ids.add(this);
    }

    /** The id's network namespace, by nsfs's name: its ports are that namespace's (cma_pernet). */
    String net() {
        return addresses.net().name();
    }

    synchronized CmaState state() {
        return state;
    }

    synchronized SockAddr source() {
        return source;
    }

    synchronized SockAddr destination() {
        return destination;
    }

    synchronized CmaDevice device() {
        return device;
    }

    synchronized boolean reuseAddr() {
        return reuseAddr;
    }

    private synchronized PortSpace boundSpace() {
        return boundSpace;
    }

    private synchronized int boundPort() {
        return boundPort;
    }

    synchronized boolean listening() {
        return state == CmaState.LISTEN;
    }

    /** The address family ids of this id use: the source's, else the destination's (cma_family). */
    synchronized int family() {
        return source != null ? source.family() : destination != null ? destination.family() : 0;
    }

    /** rdma_set_reuseaddr: on, unless listening; off, only while IDLE (EINVAL otherwise). */
    synchronized void reuseAddr(boolean on) throws Errno {
        if (!(on && state != CmaState.LISTEN) && state != CmaState.IDLE) {
            throw Errno.of(Errno.EINVAL);
        }
        reuseAddr = on;
    }

    /** rdma_listen: a listening id is no longer reusable. */
    synchronized void dropReuseAddr() {
        reuseAddr = false;
    }

    /** rdma_set_afonly: only while IDLE or ADDR_BOUND. */
    synchronized void afOnly(boolean on) throws Errno {
        if (state != CmaState.IDLE && state != CmaState.ADDR_BOUND) {
            throw Errno.of(Errno.EINVAL);
        }
        afOnly = on;
    }

    /** rdma_set_ack_timeout: for RC (and XRC initiator) ids only. */
    synchronized void ackTimeout(int value) throws Errno {
        if (qpType != io.ibemu.emulator.hca.QpType.RC.code() && qpType != io.ibemu.emulator.hca.QpType.XRC_INI.code()) {
            throw Errno.of(Errno.EINVAL);
        }
        ackTimeout = value;
    }

    /** rdma_set_service_type: the ToS, kept for the path's traffic class. */
    synchronized void tos(int value) {
        tos = value;
    }

    /** cma_comp_exch: moves from {@code from} to {@code to}, or EINVAL if the id is elsewhere. */
    synchronized void exchange(CmaState from, CmaState to) throws Errno {
        if (state != from) {
            throw Errno.of(Errno.EINVAL);
        }
        state = to;
    }

    private synchronized boolean tryExchange(CmaState from, CmaState to) {
        if (state != from) {
            return false;
        }
        state = to;
        return true;
    }

    /** A new owner for the id's events (a CONNECT_REQUEST's id handed to its context, MIGRATE_ID). */
    void handler(Handler h) {
        handler = h;
    }

    boolean report(CmaEvent event) {
        Handler h = handler;
        return h != null && h.event(this, event);
    }

    /**
     * rdma_bind_addr: an unknown family is EAFNOSUPPORT, an id not IDLE EINVAL; a specific address
     * must belong to an interface (EADDRNOTAVAIL) over an RDMA device (ENODEV) — for AF_IB, to a
     * port's GID table; then the port space's port (EADDRINUSE, EACCES below 1024 unprivileged).
     * A failure leaves the id IDLE, with the interface the address was found on.
     */
    void bind(SockAddr addr, boolean privileged) throws Errno {
        if (SockAddr.size(addr.family()) == 0) {
            throw Errno.of(Errno.EAFNOSUPPORT);
        }
        exchange(CmaState.IDLE, CmaState.ADDR_BOUND);
        try {
            CmaDevice bound = addr.isAny() ? null : translate(addr);
            PortSpace space = ps;
            SockAddr a = addr;
            if (addr.family() == SockAddr.AF_IB) {
                space = ibPortSpace(addr);
                // cma_port of an AF_IB address: the service id's low 16 bits under its mask (0: any port)
                int port = (int) (addr.sid() & addr.sidMask() & 0xffff);
                a = new SockAddr(addr.family(), addr.address(), port, addr.pkey(), serviceBase(space) | port,
                        IB_IP_PS_MASK | addr.sidMask(), addr.scopeId());
            }
            synchronized (this) {
                source = a;
                device = bound;
            }
            int port = cm.ports.bind(space, this, a, privileged);
            synchronized (this) {
                source = a.withPort(port);
                boundSpace = space;
                boundPort = port;
                if (destination == null) {
                    destination = SockAddr.any(a.family()); // rdma_bind_addr gives the destination the family
                }
            }
        } catch (Errno e) {
            synchronized (this) {
                state = CmaState.IDLE;
                source = null;
                device = null;
            }
            throw e;
        }
    }

    /**
     * cma_translate_addr + cma_acquire_dev_by_src_ip for a bind to a specific address. An id whose
     * earlier bind failed translates through the interface that bind found, so on InfiniBand (the
     * GID is the interface's, not made of the address as on RoCE) it binds to any address.
     */
    private CmaDevice translate(SockAddr addr) throws Errno {
        if (addr.family() == SockAddr.AF_IB) {
            return cm.deviceByGid(addr.address(), RdmaCm.ANY_PKEY).orElseThrow(() -> Errno.of(Errno.ENODEV));
        }
        int kept;
        synchronized (this) {
            kept = boundInterface;
        }
        NetworkInterface n = addresses.translate(addr.inet(), kept);
        synchronized (this) {
            boundInterface = n.getIndex(); // rdma_copy_src_l2_addr; rdma_bind_addr's error path leaves it
        }
        // cma_acquire_dev_by_src_ip on an InfiniBand port: the GID of the interface's hardware address
        return netdevDevice(addresses.ipoib(n).orElseThrow(() -> Errno.of(Errno.ENODEV)));
    }

    private CmaDevice netdevDevice(Ipoib.Netdev n) throws Errno {
        byte[] gid = Arrays.copyOfRange(n.hardwareAddress(), 4, 20);
        return cm.deviceByGid(gid, n.pkey()).orElseThrow(() -> Errno.of(Errno.ENODEV));
    }

    /** cma_select_ib_ps: the port space an AF_IB service id names; none is EPROTONOSUPPORT. */
    private PortSpace ibPortSpace(SockAddr addr) throws Errno {
        long mask = addr.sidMask() & IB_IP_PS_MASK; // the port's bits are not the space's
        long sid = addr.sid() & mask;
        if (ps == PortSpace.IB && sid == (IB_IP_PS_IB & mask)) {
            return PortSpace.IB;
        }
        if ((ps == PortSpace.IB || ps == PortSpace.TCP) && sid == (IB_IP_PS_TCP & mask)) {
            return PortSpace.TCP;
        }
        if ((ps == PortSpace.IB || ps == PortSpace.UDP) && sid == (IB_IP_PS_UDP & mask)) {
            return PortSpace.UDP;
        }
        throw Errno.of(Errno.EPROTONOSUPPORT);
    }

    private static long serviceBase(PortSpace space) {
        return switch (space) {
            case TCP -> IB_IP_PS_TCP;
            case UDP -> IB_IP_PS_UDP;
            default -> IB_IP_PS_IB;
        };
    }

    /**
     * rdma_resolve_addr: an IDLE id binds first (to {@code src}, else the any address of the
     * destination's family); the families must agree (EINVAL); ADDR_BOUND becomes ADDR_QUERY
     * (EINVAL otherwise). The any address resolves to the loopback port, an AF_IB address to the
     * port of its subnet, an IP address through IPoIB; errors known at once are returned and
     * leave the id ADDR_BOUND, the rest arrive as ADDR_ERROR.
     */
    void resolveAddr(SockAddr src, SockAddr dst, int timeoutMs, boolean privileged) throws Errno {
        if (SockAddr.size(dst.family()) == 0) {
            throw Errno.of(Errno.EAFNOSUPPORT);
        }
        if (state() == CmaState.IDLE) {
            SockAddr from = src != null && src.family() != 0 ? src : anyFor(dst);
            bind(from, privileged);
        }
        if (family() != dst.family()) {
            throw Errno.of(Errno.EINVAL);
        }
        exchange(CmaState.ADDR_BOUND, CmaState.ADDR_QUERY);
        int attempt;
        synchronized (this) {
            destination = dst;
            attempt = ++resolution;
        }
        try {
            if (dst.isAny()) {
                resolveLoopback(attempt);
            } else if (dst.family() == SockAddr.AF_IB) {
                resolveIb(attempt, dst);
            } else {
                resolveIp(attempt, dst, timeoutMs);
            }
        } catch (Errno e) {
            tryExchange(CmaState.ADDR_QUERY, CmaState.ADDR_BOUND);
            throw e;
        }
    }

    private static SockAddr anyFor(SockAddr dst) {
        SockAddr any = SockAddr.any(dst.family());
        return dst.family() == SockAddr.AF_INET6 ? new SockAddr(any.family(), any.address(), 0, 0, 0, 0, dst.scopeId())
                : dst.family() == SockAddr.AF_IB ? new SockAddr(any.family(), any.address(), 0, 0, 0, 0, 0) : any;
    }

    /** cma_resolve_loopback: the bound device, or the loopback port (cma_bind_loopback); dgid = sgid. */
    private void resolveLoopback(int attempt) throws Errno {
        CmaDevice d = device();
        if (d == null) {
            d = cm.loopbackDevice().orElseThrow(() -> Errno.of(Errno.ENODEV));
        }
        CmaDevice resolved = d.withDgid(d.sgid());
        cm.later(0, () -> addressResolved(attempt, resolved, null));
    }

    /** cma_resolve_ib_addr: the destination GID as is, on the bound port or the port that can reach it. */
    private void resolveIb(int attempt, SockAddr dst) throws Errno {
        CmaDevice d = device();
        if (d == null) {
            d = cm.loopbackDevice().orElseThrow(() -> Errno.of(Errno.ENODEV));
        }
        CmaDevice resolved = d.withDgid(dst.address());
        cm.later(0, () -> addressResolved(attempt, resolved, null));
    }

    /** rdma_resolve_ip: the route now (ENETUNREACH at once), the neighbour until {@code timeoutMs}. */
    private void resolveIp(int attempt, SockAddr dst, int timeoutMs) throws Errno {
        SockAddr src = source();
        AddressResolver.Route route = addresses.route(src.isAny() ? null : src.inet(), dst.inet());
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        cm.later(0, () -> neighbour(attempt, route, dst.inet(), deadline));
    }

    private void neighbour(int attempt, AddressResolver.Route route, InetAddress dst, long deadline) {
        if (!current(attempt)) {
            return;
        }
        if (route.netdev() == null) {
            addressFailed(attempt, Errno.ENODEV); // the loopback device: no RDMA device has its address
            return;
        }
        Optional<byte[]> hw = route.source().equals(dst) ? Optional.of(route.netdev().hardwareAddress())
                : addresses.neighbour(route, dst);
        if (hw.isPresent()) {
            CmaDevice d;
            try {
                d = netdevDevice(route.netdev()).withDgid(Arrays.copyOfRange(hw.get(), 4, 20));
            } catch (Errno e) {
                addressFailed(attempt, e.code());
                return;
            }
            addressResolved(attempt, d, route.source());
        } else if (System.nanoTime() - deadline >= 0) {
            addressFailed(attempt, Errno.ETIMEDOUT);
        } else {
            cm.later(NEIGHBOUR_RETRY_MS, () -> neighbour(attempt, route, dst, deadline));
        }
    }

    private synchronized boolean current(int attempt) {
        return attempt == resolution && state == CmaState.ADDR_QUERY;
    }

    /** addr_handler on success: the device and source address taken, ADDR_QUERY to ADDR_RESOLVED. */
    private void addressResolved(int attempt, CmaDevice d, InetAddress src) {
        synchronized (this) {
            if (attempt != resolution || state != CmaState.ADDR_QUERY) {
                return;
            }
            // addr_handler acquires a device only for an id bound to none: a bound one keeps its own
            device = device != null ? device.withDgid(d.dgid()) : d;
            if (src != null && source.isAny()) {
                source = source.withAddress(src.getAddress());
            }
            state = CmaState.ADDR_RESOLVED;
        }
        report(CmaEvent.of(CmaEvent.Type.ADDR_RESOLVED, 0));
    }

    /** addr_handler on failure: back to ADDR_BOUND, ADDR_ERROR with the negative errno. */
    private void addressFailed(int attempt, int errno) {
        synchronized (this) {
            if (attempt != resolution || state != CmaState.ADDR_QUERY) {
                return;
            }
            state = CmaState.ADDR_BOUND;
        }
        report(CmaEvent.of(CmaEvent.Type.ADDR_ERROR, -errno));
    }

    /**
     * rdma_resolve_route for InfiniBand (cma_resolve_ib_route): ADDR_RESOLVED becomes ROUTE_QUERY
     * (EINVAL otherwise); a port that knows no SM has no SA to ask: EAGAIN at once, the id back in
     * ADDR_RESOLVED; else the SA's PathRecord for the GIDs, P_Key and service id, within
     * {@code timeoutMs}, gives ROUTE_RESOLVED, or ROUTE_ERROR with -ETIMEDOUT (no answer) or
     * -EINVAL (an error status, e.g. no path), back in ADDR_RESOLVED.
     */
    void resolveRoute(int timeoutMs) throws Errno {
        exchange(CmaState.ADDR_RESOLVED, CmaState.ROUTE_QUERY);
        CmaDevice d = device();
        io.ibemu.emulator.fabric.Port port = d.hca().port(d.port());
        SaClient sa;
        boolean known;
        synchronized (cm.fabric.lock()) {
            known = port.smLid() != 0 && port.lid() != 0;
        }
        try {
            if (!known) {
                throw Errno.of(Errno.EAGAIN);
            }
            sa = cm.sa(port);
        } catch (Errno e) {
            tryExchange(CmaState.ROUTE_QUERY, CmaState.ADDR_RESOLVED);
            throw e;
        } catch (java.io.IOException e) {
            tryExchange(CmaState.ROUTE_QUERY, CmaState.ADDR_RESOLVED);
            throw Errno.of(Errno.ENOMEM);
        }
        SockAddr dst = destination();
        long sid = dst.family() == SockAddr.AF_IB ? dst.sid() : ps.serviceId(dst.port());
        PathRecord q = PathRecord.query(SockAddr.gidPrefixOf(d.sgid()), SockAddr.gidGuidOf(d.sgid()),
                SockAddr.gidPrefixOf(d.dgid()), SockAddr.gidGuidOf(d.dgid()), d.pkey());
        PathRecord request = new PathRecord(sid, q.dgidPrefix(), q.dgidInterface(), q.sgidPrefix(),
                q.sgidInterface(), 0, 0, false, 0, 0, 0, true, 1, q.pkey(), 0, 0, 0, 0, 0, 0, 0, 0, 0);
        long mask = PathRecord.DGID | PathRecord.SGID | PathRecord.PKEY | PathRecord.NUMB_PATH
                | PathRecord.REVERSIBLE | SERVICE_ID;
        int attempt;
        synchronized (this) {
            attempt = ++resolution;
        }
        cm.query(() -> {
            int status;
            PathRecord path = null;
            try {
                path = sa.path(request, mask, Math.max(timeoutMs, 1), 0);
                status = 0;
            } catch (SaClient.Refused e) {
                status = -Errno.EINVAL;
            } catch (SaClient.NoSubnetManager e) {
                status = -Errno.EAGAIN;
            } catch (java.io.IOException e) {
                status = -Errno.ETIMEDOUT;
            }
            routeDone(attempt, path, status);
        });
    }

    /** IB_SA_PATH_REC_SERVICE_ID: the two component mask bits of the 64-bit ServiceID. */
    private static final long SERVICE_ID = 0x3L;

    /** cma_query_handler: the path kept and ROUTE_RESOLVED, or ROUTE_ERROR back in ADDR_RESOLVED. */
    private void routeDone(int attempt, PathRecord path, int status) {
        synchronized (this) {
            if (attempt != resolution || state != CmaState.ROUTE_QUERY) {
                return;
            }
            if (status == 0) {
                this.path = path;
                state = CmaState.ROUTE_RESOLVED;
            } else {
                state = CmaState.ADDR_RESOLVED;
            }
        }
        report(status == 0 ? CmaEvent.of(CmaEvent.Type.ROUTE_RESOLVED, 0)
                : CmaEvent.of(CmaEvent.Type.ROUTE_ERROR, status));
    }

    /** rdma_set_ib_path: the user's path becomes the route of an ADDR_RESOLVED id (EINVAL otherwise). */
    void setIbPath(PathRecord given) throws Errno {
        synchronized (this) {
            exchange(CmaState.ADDR_RESOLVED, CmaState.ROUTE_RESOLVED);
            path = given;
        }
        report(CmaEvent.of(CmaEvent.Type.ROUTE_RESOLVED, 0));
    }

    /** The route's primary path once RESOLVE_ROUTE found it, else null. */
    synchronized PathRecord path() {
        return path;
    }

    // ---- connections over the IB CM (cma.c: rdma_listen, rdma_connect, rdma_accept, cma_ib_handler) ----

    /**
     * rdma_listen: an IDLE id binds to the IPv4 any address first; ADDR_BOUND becomes LISTEN
     * (EINVAL otherwise); the IB CM listens for the bound port's service id on the bound device,
     * or on every device when the id is bound to none.
     */
    void listen(int backlog) throws Errno {
        if (state() == CmaState.IDLE) {
            bind(SockAddr.any(SockAddr.AF_INET), false);
        }
        exchange(CmaState.ADDR_BOUND, CmaState.LISTEN);
        if (reuseAddr()) {
            try {
                cm.ports.listen(boundSpace(), this, boundPort());
            } catch (Errno e) {
                tryExchange(CmaState.LISTEN, CmaState.ADDR_BOUND);
                throw e;
            }
        }
        SockAddr src = source();
        long sid = src.family() == SockAddr.AF_IB ? src.sid() : ps.serviceId(src.port());
        CmaDevice d = device();
        List<Hca> on = d != null ? List.of(cm.hca(d.hca())) : cm.hcas();
        List<CmId> made = new ArrayList<>();
        try {
            for (Hca hca : on) {
                // cma_ib_listen: one IB CM listener per device and service id, shared by every
                // RDMA CM id on that port; a REQ finds its id by address (RdmaCm.listenerFor)
                made.add(cm.ibCm.insertListen(hca, cm.ibHandler, sid));
            }
        } catch (Errno e) {
            made.forEach(CmId::destroy);
            tryExchange(CmaState.LISTEN, CmaState.ADDR_BOUND);
            throw e;
        }
        synchronized (this) {
            listenIds.addAll(made);
        }
    }

    /** The private data the REQ or SIDR_REQ carries: the cma_hdr first in the IP port spaces. */
    private byte[] requestData(byte[] user) throws Errno {
        SockAddr src = source();
        SockAddr dst = destination();
        if (src.family() == SockAddr.AF_IB) {
            return user;
        }
        if (CmaHeader.SIZE + user.length > REQ_PRIVATE) {
            throw Errno.of(Errno.EINVAL);
        }
        byte[] b = Arrays.copyOf(CmaHeader.of(src, dst).encode(), CmaHeader.SIZE + user.length);
        System.arraycopy(user, 0, b, CmaHeader.SIZE, user.length);
        return b;
    }

    /**
     * rdma_connect on a connected (RC/UC) id: ROUTE_RESOLVED becomes CONNECT (EINVAL otherwise);
     * a REQ with the route's path, the user's QP number and a starting PSN of our own, the
     * private data after the cma_hdr; any failure returns the id to ROUTE_RESOLVED.
     */
    void connect(ConnParam p) throws Errno {
        exchange(CmaState.ROUTE_RESOLVED, CmaState.CONNECT);
        CmId id = null;
        try {
            byte[] data = requestData(p.privateData());
            SockAddr dst = destination();
            long sid = dst.family() == SockAddr.AF_IB ? dst.sid() : ps.serviceId(dst.port());
            synchronized (this) {
                qpNum = p.qpNum();
                srq = p.srq();
            }
            id = cm.ibCm.createId(cm.hca(device().hca()), cm.ibHandler);
            cm.register(id, this);
            synchronized (this) {
                ibId = id;
            }
            if (qpType == QpType.UD.code()) {
                // cma_resolve_ib_udp: a SIDR_REQ, its timeout 1 << (CMA_CM_RESPONSE_TIMEOUT - 8) ms
                id.sendSidrReq(new SidrRequestParam(path(), sid, 1 << (CM_RESPONSE_TIMEOUT - 8), data, MAX_CM_RETRIES));
                return;
            }
            id.sendReq(new CmRequestParam(path(), null, sid, p.qpNum(), QpType.ofCode(qpType), seqNum, data,
                    p.responderResources(), p.initiatorDepth(), CM_RESPONSE_TIMEOUT, p.flowControl(),
                    CM_RESPONSE_TIMEOUT, Math.min(7, p.retryCount()), Math.min(7, p.rnrRetryCount()), MAX_CM_RETRIES,
                    p.srq()));
        } catch (Errno e) {
            if (id != null) {
                synchronized (this) {
                    ibId = null;
                }
                cm.forget(id);
                id.destroy();
            }
            tryExchange(CmaState.CONNECT, CmaState.ROUTE_RESOLVED);
            throw e;
        }
    }

    private synchronized CmId ib() throws Errno {
        if (ibId == null) {
            throw Errno.of(Errno.EINVAL);
        }
        return ibId;
    }

    /**
     * rdma_accept: only in CONNECT (EINVAL). With parameters (the passive side), a REP with the
     * user's QP and our starting PSN; without (the active side after CONNECT_RESPONSE), the RTU
     * (cma_rep_recv). A failed REP rejects the request.
     */
    void accept(ConnParam p) throws Errno {
        if (state() != CmaState.CONNECT) {
            throw Errno.of(Errno.EINVAL);
        }
        CmId id = ib();
        if (qpType == QpType.UD.code()) {
            if (p != null) {
                synchronized (this) {
                    qpNum = p.qpNum();
                }
            }
            sendSidrRep(id, SidrStatus.SUCCESS, p == null ? 0 : p.qkey(), p == null ? new byte[0] : p.privateData());
            return;
        }
        if (p == null) {
            id.sendRtu(new byte[0]);
            return;
        }
        if (p.privateData().length > REP_PRIVATE) {
            throw Errno.of(Errno.EINVAL);
        }
        synchronized (this) {
            qpNum = p.qpNum();
            srq = p.srq();
        }
        try {
            id.sendRep(new CmReplyParam(p.qpNum(), seqNum, p.privateData(), p.responderResources(),
                    p.initiatorDepth(), 0, p.flowControl(), Math.min(7, p.rnrRetryCount()), p.srq()));
        } catch (Errno e) {
            try {
                id.sendRej(CmRejectReason.CONSUMER_DEFINED, new byte[0], new byte[0]);
            } catch (Errno ignored) {
                // the REJ is what the state allows, or nothing
            }
            throw e;
        }
    }

    /** rdma_reject: a REJ with the reason and private data, a SIDR_REP(REJECT) for UD (EINVAL without an IB CM id). */
    void reject(byte[] privateData, CmRejectReason reason) throws Errno {
        if (qpType == QpType.UD.code()) {
            sendSidrRep(ib(), SidrStatus.REJECT, 0, privateData);
            return;
        }
        ib().sendRej(reason, new byte[0], privateData);
    }

    /** cma_send_sidr_rep: on success the Q_Key settled (cma_set_qkey) and our QP number. */
    private void sendSidrRep(CmId id, SidrStatus status, int qkey, byte[] privateData) throws Errno {
        int qp;
        int key = 0;
        synchronized (this) {
            if (status == SidrStatus.SUCCESS) {
                key = settleQkey(qkey);
            }
            qp = qpNum;
        }
        id.sendSidrRep(new SidrReplyParam(status == SidrStatus.SUCCESS ? qp : 0, key, status, null, privateData));
    }

    private int idQkey; // guarded by this; 0 until settled

    /** cma_set_qkey: a settled Q_Key stays (another one asked for: EINVAL); else the given one or the space's. */
    private int settleQkey(int qkey) throws Errno {
        if (idQkey != 0) {
            if (qkey != 0 && qkey != idQkey) {
                throw Errno.of(Errno.EINVAL);
            }
            return idQkey;
        }
        idQkey = qkey != 0 ? qkey : qkey();
        return idQkey;
    }

    /** rdma_disconnect: a DREQ, or the DREP when the peer's DREQ came first; EINVAL without an IB CM id. */
    void disconnect() throws Errno {
        CmId id = ib();
        try {
            id.sendDreq(new byte[0]);
        } catch (Errno e) {
            try {
                id.sendDrep(new byte[0]);
            } catch (Errno ignored) {
                // neither applies in this state: the kernel returns 0 all the same
            }
        }
    }

    /** rdma_notify: IB_EVENT_COMM_EST establishes the connection (ib_cm_notify); others EINVAL. */
    void notifyEvent(int event) throws Errno {
        if (event != IB_EVENT_COMM_EST) {
            throw Errno.of(Errno.EINVAL);
        }
        ib().establish();
    }

    static final int IB_EVENT_COMM_EST = 4;

    /**
     * rdma_init_qp_attr: with a connection's IB CM id (not UD), what the IB CM gives for the
     * state; otherwise cma_ib_init_qp_attr's P_Key index and port, and the Q_Key (UD) or no
     * remote access (connected), whatever state was asked.
     */
    QpAttributeChange initQpAttr(QpState target) throws Errno {
        QpAttributeChange c = cmQpAttr(target);
        int timeout;
        synchronized (this) {
            timeout = ackTimeout;
        }
        if ((c.mask() & QpAttributeMask.TIMEOUT) == 0 || timeout < 0) {
            return c;
        }
        // rdma_init_qp_attr: a timeout set by rdma_set_ack_timeout replaces the one the CM computed
        return new QpAttributeChange(c.attributes().toBuilder().timeout(timeout).build(), c.mask());
    }

    private QpAttributeChange cmQpAttr(QpState target) throws Errno {
        CmId id;
        synchronized (this) {
            id = ibId;
        }
        if (id != null && qpType != QpType.UD.code()) {
            QpAttributeChange c = id.initQpAttr(target);
            if (target != QpState.RTR) {
                return c;
            }
            // rdma_init_qp_attr: the receive PSN is our own announced one, which the peer's IB CM sends from
            return new QpAttributeChange(c.attributes().toBuilder().rqPsn(seqNum).build(), c.mask());
        }
        CmaDevice d = device();
        int pkeyIndex = cm.pkeyIndex(d).orElseThrow(() -> Errno.of(Errno.ENOENT));
        QpAttributes.Builder b = QpAttributes.builder().qpState(target).pkeyIndex(pkeyIndex).portNum(d.port());
        int mask = QpAttributeMask.STATE | QpAttributeMask.PKEY_INDEX | QpAttributeMask.PORT;
        if (qpType == QpType.UD.code()) {
            int key;
            synchronized (this) {
                key = settleQkey(0);
            }
            b.qkey(key);
            mask |= QpAttributeMask.QKEY;
        } else {
            b.qpAccessFlags(0);
            mask |= QpAttributeMask.ACCESS_FLAGS;
        }
        return new QpAttributeChange(b.build(), mask);
    }

    /** RDMA_UDP_QKEY for the UDP and IB spaces; IPOIB's is the broadcast group's (IPoIB's default). */
    int qkey() {
        return ps == PortSpace.IPOIB ? IPOIB_QKEY : UDP_QKEY;
    }

    static final int UDP_QKEY = 0x01234567;
    static final int IPOIB_QKEY = 0x00000b1b;

    /**
     * cma_find_listener's test: this id listens through {@code listen} (so on its device) and the
     * REQ's cma_hdr (null: none) names an address it is bound to (cma_match_private_data).
     */
    synchronized boolean listensFor(CmId listen, CmaHeader hdr) {
        if (state != CmaState.LISTEN || !listenIds.contains(listen)) {
            return false;
        }
        return source.family() == SockAddr.AF_IB || hdr != null && accepts(hdr);
    }

    /**
     * cma_ib_req_handler for this listener (listensFor chose it): a REQ on one of its IB CM ids,
     * with its private data and cma_hdr as decoded once.
     */
    void requestReceived(CmId newIb, CmEvent.ReqReceived r, byte[] data, CmaHeader header) {
        CmaId conn;
        int offset;
        synchronized (this) {
            if (state != CmaState.LISTEN) {
                newIb.destroy();
                return;
            }
            offset = source.family() == SockAddr.AF_IB ? 0 : CmaHeader.SIZE;
        }
        CmaHeader hdr = offset == 0 ? null : header;
        conn = new CmaId(cm, ps, r.qpType().code(), addresses, handler);
        PathRecord p = r.primaryPath();
        byte[] sgid = SockAddr.gid(p.sgidPrefix(), p.sgidInterface());
        byte[] dgid = SockAddr.gid(p.dgidPrefix(), p.dgidInterface());
        synchronized (conn) {
            conn.device = new CmaDevice(newIb.hca().local(), r.port(), sgid, p.pkey(), dgid);
            conn.path = p;
            SockAddr mine = source();
            if (hdr != null) {
                conn.source = new SockAddr(hdr.family(), hdr.dst(), mine.port(), 0, 0, 0, 0);
                conn.destination = new SockAddr(hdr.family(), hdr.src(), hdr.port(), 0, 0, 0, 0);
            } else {
                conn.source = mine;
                conn.destination = new SockAddr(SockAddr.AF_IB, dgid, mine.port(), p.pkey(), mine.sid(), -1L, 0);
            }
            conn.state = CmaState.CONNECT;
            conn.ibId = newIb;
        }
        cm.register(newIb, conn);
        ConnParam param = new ConnParam(r.remoteQpn(), 0, Arrays.copyOfRange(data, offset, REQ_PRIVATE), r.srq(),
                r.responderResources(), r.initiatorDepth(), r.flowControl(), r.retryCount(), r.rnrRetryCount());
        if (!report(new CmaEvent(CmaEvent.Type.CONNECT_REQUEST, 0, param.encode(), conn))) {
            conn.destroy(); // the owner refused it (backlog): the IB CM rejects the REQ
            return;
        }
        try {
            newIb.sendMra(CmId.MRA_FLAG_DELAY | MRA_SERVICE_TIMEOUT, new byte[0]); // time for the user to accept
        } catch (Errno e) {
            // the REQ was answered meanwhile (a fast ACCEPT): no MRA is due
        }
    }

    /** cma_ib_req_handler for a SIDR_REQ (cma_ib_new_udp_id): the new UD id, CONNECT_REQUEST with ud parameters. */
    void sidrRequestReceived(CmId newIb, CmEvent.SidrReqReceived r, byte[] data, CmaHeader header) {
        int offset;
        SockAddr mine;
        synchronized (this) {
            if (state != CmaState.LISTEN) {
                newIb.destroy();
                return;
            }
            offset = source.family() == SockAddr.AF_IB ? 0 : CmaHeader.SIZE;
            mine = source;
        }
        CmaHeader hdr = offset == 0 ? null : header;
        CmaId conn = new CmaId(cm, ps, QpType.UD.code(), addresses, handler);
        io.ibemu.emulator.fabric.Port port = newIb.hca().local().port(r.port());
        byte[] sgid;
        synchronized (cm.fabric.lock()) {
            sgid = SockAddr.gid(port.subnetPrefix(), port.guid());
        }
        synchronized (conn) {
            conn.device = new CmaDevice(newIb.hca().local(), r.port(), sgid, r.pkey(), null);
            conn.source = hdr != null ? new SockAddr(hdr.family(), hdr.dst(), mine.port(), 0, 0, 0, 0) : mine;
            conn.destination = hdr != null ? new SockAddr(hdr.family(), hdr.src(), hdr.port(), 0, 0, 0, 0) : null;
            conn.state = CmaState.CONNECT;
            conn.ibId = newIb;
        }
        cm.register(newIb, conn);
        byte[] ud = udParam(0, 0, null, Arrays.copyOfRange(data, offset, data.length));
        if (!report(new CmaEvent(CmaEvent.Type.CONNECT_REQUEST, 0, ud, conn))) {
            conn.destroy();
        }
    }

    /** cma_sidr_rep_handler: ESTABLISHED with the peer's QPN, Q_Key and an address vector from the path, or UNREACHABLE. */
    private CmaEvent sidrReply(CmEvent.SidrRepReceived r) {
        if (r.status() != SidrStatus.SUCCESS.code()) {
            return new CmaEvent(CmaEvent.Type.UNREACHABLE, r.status(), udParam(0, 0, null, r.privateData()), null);
        }
        try {
            settleQkey(r.qkey());
        } catch (Errno e) {
            return CmaEvent.of(CmaEvent.Type.ADDR_ERROR, -e.code());
        }
        return new CmaEvent(CmaEvent.Type.ESTABLISHED, 0, udParam(r.qpn(), r.qkey(), path, r.privateData()), null);
    }

    /** struct rdma_ucm_ud_param: ib_init_ah_attr_from_path's address vector (no GRH on one subnet). */
    private byte[] udParam(int qpn, int qkey, PathRecord p, byte[] privateData) {
        io.ibemu.kernel.CStruct s = Ucma.UD_PARAM;
        byte[] b = new byte[s.size()];
        s.field("qp_num").put(b, 0, qpn);
        s.field("qkey").put(b, 0, qkey);
        if (p != null) {
            s.field("ah_attr.dlid").put(b, 0, p.dlid());
            s.field("ah_attr.sl").put(b, 0, p.sl());
            s.field("ah_attr.static_rate").put(b, 0, 0);
            s.field("ah_attr.port_num").put(b, 0, device.port());
        }
        int n = Math.min(privateData.length, Ucma.MAX_PRIVATE_DATA);
        System.arraycopy(privateData, 0, b, s.field("private_data").offset(), n);
        s.field("private_data_len").put(b, 0, n);
        return b;
    }

    /** cma_match_private_data: the header's destination is our bound address, or we are bound to any. */
    private synchronized boolean accepts(CmaHeader hdr) {
        if (source.family() != hdr.family() && !(source.family() == SockAddr.AF_INET6 && !afOnly)) {
            return false;
        }
        return source.isAny() || Arrays.equals(source.address(), hdr.dst());
    }

    /** cma_ib_handler: the IB CM's events of a connection, as the RDMA CM reports them. */
    void ibEvent(CmEvent e) {
        CmaEvent out;
        synchronized (this) {
            boolean timewait = e instanceof CmEvent.TimewaitExit;
            if (!timewait && state != CmaState.CONNECT || timewait && state != CmaState.DISCONNECT) {
                return;
            }
            out = translate(e);
        }
        if (out != null) {
            report(out);
        }
    }

    /** The RDMA CM event an IB CM event makes; null for those it does not report (MRA, SIDR). */
    private CmaEvent translate(CmEvent e) {
        if (e instanceof CmEvent.ReqError || e instanceof CmEvent.RepError) {
            return CmaEvent.of(CmaEvent.Type.UNREACHABLE, -Errno.ETIMEDOUT);
        }
        if (e instanceof CmEvent.RepReceived r) {
            return new CmaEvent(CmaEvent.Type.CONNECT_RESPONSE, 0, new ConnParam(r.remoteQpn(), 0, r.privateData(),
                    r.srq(), r.responderResources(), r.initiatorDepth(), r.flowControl(), 0, r.rnrRetryCount())
                    .encode(), null);
        }
        if (e instanceof CmEvent.RtuReceived || e instanceof CmEvent.UserEstablished) {
            return CmaEvent.of(CmaEvent.Type.ESTABLISHED, 0);
        }
        if (e instanceof CmEvent.DreqError) {
            return disconnected(-Errno.ETIMEDOUT);
        }
        if (e instanceof CmEvent.DreqReceived || e instanceof CmEvent.DrepReceived) {
            return disconnected(0);
        }
        if (e instanceof CmEvent.TimewaitExit) {
            return CmaEvent.of(CmaEvent.Type.TIMEWAIT_EXIT, 0);
        }
        if (e instanceof CmEvent.SidrReqError) {
            return CmaEvent.of(CmaEvent.Type.UNREACHABLE, -Errno.ETIMEDOUT);
        }
        if (e instanceof CmEvent.SidrRepReceived r) {
            return sidrReply(r);
        }
        if (e instanceof CmEvent.RejReceived r) {
            return new CmaEvent(CmaEvent.Type.REJECTED, r.reason(),
                    new ConnParam(0, 0, r.privateData(), false, 0, 0, false, 0, 0).encode(), null);
        }
        return null;
    }

    /** CONNECT becomes DISCONNECT with a DISCONNECTED event (called holding this id's monitor). */
    private CmaEvent disconnected(int status) {
        state = CmaState.DISCONNECT;
        return CmaEvent.of(CmaEvent.Type.DISCONNECTED, status);
    }

    // ---- multicast (cma_join_ib_multicast, cma_ib_mc_handler) ----

    /** The groups this id joined, by the address it named: their MCMemberRecords as asked. */
    private final java.util.Map<SockAddr, McMemberRecord> joined = new java.util.HashMap<>(); // guarded by this

    /**
     * rdma_join_multicast: a UD id, bound or resolved (EINVAL otherwise); the MGID from the address
     * (cma_set_mgid: an IPv4 or IPv6 address mapped as IPoIB maps it, the RDMA CM signature for the
     * UDP space; an AF_IB address is the MGID); the SA join runs off the caller and ends in
     * MULTICAST_JOIN, with the group's address vector, or MULTICAST_ERROR.
     */
    void joinMulticast(SockAddr addr, int joinState, Object owner) throws Errno {
        CmaDevice d;
        synchronized (this) {
            if (qpType != QpType.UD.code() || state != CmaState.ADDR_BOUND && state != CmaState.ADDR_RESOLVED) {
                throw Errno.of(Errno.EINVAL);
            }
            if (joined.containsKey(addr)) {
                throw Errno.of(Errno.EADDRINUSE);
            }
            d = device;
        }
        io.ibemu.emulator.fabric.Port port = d.hca().port(d.port());
        byte[] mgid = mgid(addr, d.pkey());
        int key;
        synchronized (this) {
            key = settleQkey(0);
        }
        McMemberRecord ask = new McMemberRecord(SockAddr.gidPrefixOf(mgid), SockAddr.gidGuidOf(mgid),
                SockAddr.gidPrefixOf(d.sgid()), SockAddr.gidGuidOf(d.sgid()), key, 0, 0, 0, tosOrZero(), d.pkey() | 0x8000,
                0, 0, 0, 0, 0, 0, 0, 0, joinState, false);
        long mask = McMemberRecord.MGID | McMemberRecord.PORT_GID | McMemberRecord.PKEY | McMemberRecord.JOIN_STATE
                | McMemberRecord.QKEY | MC_SL | MC_FLOW_LABEL | MC_TRAFFIC_CLASS;
        SaClient sa;
        try {
            sa = cm.sa(port);
        } catch (java.io.IOException e) {
            throw Errno.of(Errno.ENOMEM);
        }
        synchronized (this) {
            joined.put(addr, ask);
        }
        cm.query(() -> {
            CmaEvent event;
            try {
                McMemberRecord group = sa.join(ask, mask);
                event = new CmaEvent(CmaEvent.Type.MULTICAST_JOIN, 0, groupParam(group), null, owner);
            } catch (SaClient.Refused e) {
                event = new CmaEvent(CmaEvent.Type.MULTICAST_ERROR, -Errno.EINVAL, null, null, owner);
            } catch (java.io.IOException e) {
                event = new CmaEvent(CmaEvent.Type.MULTICAST_ERROR, -Errno.ETIMEDOUT, null, null, owner);
            }
            synchronized (this) {
                if (!joined.containsKey(addr)) {
                    return; // left meanwhile
                }
            }
            report(event);
        });
    }

    /** IB_SA_MCMEMBER_REC_SL, _FLOW_LABEL, _TRAFFIC_CLASS. */
    private static final long MC_SL = 1L << 12, MC_FLOW_LABEL = 1L << 13, MC_TRAFFIC_CLASS = 1L << 6;

    private synchronized int tosOrZero() {
        return tos < 0 ? 0 : tos;
    }

    /** rdma_leave_multicast: the SA is told (SubnAdmDelete); unknown address: nothing. */
    void leaveMulticast(SockAddr addr) {
        McMemberRecord rec;
        CmaDevice d;
        synchronized (this) {
            rec = joined.remove(addr);
            d = device;
        }
        if (rec == null || d == null) {
            return;
        }
        cm.query(() -> {
            try {
                cm.sa(d.hca().port(d.port())).leave(rec, McMemberRecord.MGID | McMemberRecord.PORT_GID
                        | McMemberRecord.JOIN_STATE);
            } catch (java.io.IOException e) {
                // the SA forgets the member at its own pace
            }
        });
    }

    /** cma_set_mgid for InfiniBand. */
    private byte[] mgid(SockAddr addr, int pkey) {
        byte[] a = addr.address();
        if (addr.isAny()) {
            return new byte[16];
        }
        if (addr.family() == SockAddr.AF_IB) {
            return a.clone();
        }
        if (addr.family() == SockAddr.AF_INET6 && (a[0] & 0xff) == 0xff && (a[1] & 0xf0) == 0x10
                && (a[2] & 0xff) == 0xa0 && (a[3] & 0xff) == 0x1b) {
            return a.clone(); // an SA-assigned MGID given as an IPv6 address
        }
        byte[] m = new byte[16];
        m[0] = (byte) 0xff;
        m[1] = 0x12; // the IPoIB broadcast group's scope (link-local)
        m[2] = 0x40;
        m[3] = (byte) (ps == PortSpace.UDP ? 0x01 : 0x1b); // the RDMA CM signature in the UDP space
        m[4] = (byte) (pkey >> 8 | 0x80);
        m[5] = (byte) pkey;
        if (addr.family() == SockAddr.AF_INET) {
            m[12] = (byte) (a[0] & 0x0f);
            m[13] = a[1];
            m[14] = a[2];
            m[15] = a[3];
        } else {
            m[2] = 0x60; // ipv6_ib_mc_map's signature
            System.arraycopy(a, 6, m, 6, 10);
        }
        return m;
    }

    /** ib_init_ah_from_mcmember as the event's ud param: MLID, SL, a GRH to the MGID, QPN 0xffffff, the Q_Key. */
    private byte[] groupParam(McMemberRecord g) {
        io.ibemu.kernel.CStruct s = Ucma.UD_PARAM;
        byte[] b = new byte[s.size()];
        s.field("qp_num").put(b, 0, 0xffffff);
        s.field("qkey").put(b, 0, g.qkey());
        s.field("ah_attr.dlid").put(b, 0, g.mlid());
        s.field("ah_attr.sl").put(b, 0, g.sl());
        s.field("ah_attr.is_global").put(b, 0, 1);
        s.field("ah_attr.port_num").put(b, 0, device().port());
        System.arraycopy(SockAddr.gid(g.mgidPrefix(), g.mgidInterface()), 0, b, s.field("ah_attr.grh.dgid").offset(), 16);
        s.field("ah_attr.grh.flow_label").put(b, 0, g.flowLabel());
        s.field("ah_attr.grh.hop_limit").put(b, 0, g.hopLimit());
        s.field("ah_attr.grh.traffic_class").put(b, 0, g.trafficClass());
        return b;
    }

    /** rdma_destroy_id: no event is reported after it returns; the port goes back to its space. */
    void destroy() {
        PortSpace space;
        int port;
        List<CmId> ib = new ArrayList<>();
        synchronized (this) {
            if (state == CmaState.DESTROYING) {
                return;
            }
            state = CmaState.DESTROYING;
            resolution++;
            space = boundSpace;
            port = boundPort;
            boundPort = -1;
            if (ibId != null) {
                ib.add(ibId);
                ibId = null;
            }
            ib.addAll(listenIds);
            listenIds.clear();
        }
        for (SockAddr a : joinedAddresses()) {
            leaveMulticast(a);
        }
        handler = null;
        for (CmId id : ib) {
            cm.forget(id);
            id.destroy(); // what the IB CM sends for its state: REJ, DREQ, DREP
        }
        if (port >= 0) {
            cm.ports.release(space, this, port);
        }
        addresses.net().release();
        cm.ids.remove(this);
    }

    // ---- the device coming and going (cma_add_one, cma_remove_one) ----

    /** cma_add_one's cma_listen_on_dev: a listen on every device listens on {@code hca} too. */
    void listenOn(Hca hca) {
        long sid;
        synchronized (this) {
            if (state != CmaState.LISTEN || device != null) {
                return;
            }
            sid = source.family() == SockAddr.AF_IB ? source.sid() : ps.serviceId(source.port());
        }
        CmId id;
        try {
            id = cm.ibCm.insertListen(hca, cm.ibHandler, sid);
        } catch (Errno e) {
            // another handler holds that service id there (IPoIB's CM ids, 0x1000000|QPN, never
            // meet an RDMA CM port's): cma_add_one would fail the device; this listen misses it
            return;
        }
        synchronized (this) {
            if (state == CmaState.LISTEN) {
                listenIds.add(id);
                return;
            }
        }
        id.destroy();
    }

    /**
     * cma_remove_one for this id: a listen on every device stops listening on {@code hca}
     * silently (its internal child is destroyed, cma_listen_handler); an id on {@code hca} gets
     * DEVICE_REMOVAL once (cma_send_device_removal_put), and its owner destroys it.
     */
    void deviceRemoved(LocalHca hca) {
        List<CmId> dropped = new ArrayList<>();
        synchronized (this) {
            if (state == CmaState.DESTROYING || state == CmaState.DEVICE_REMOVAL) {
                return;
            }
            if (device == null || device.hca() != hca) {
                for (CmId id : listenIds) {
                    if (id.hca().local() == hca) {
                        dropped.add(id);
                    }
                }
                listenIds.removeAll(dropped);
            } else {
                state = CmaState.DEVICE_REMOVAL;
                dropped = null;
            }
        }
        if (dropped == null) {
            report(CmaEvent.of(CmaEvent.Type.DEVICE_REMOVAL, 0));
        } else {
            dropped.forEach(CmId::destroy);
        }
    }

    private synchronized List<SockAddr> joinedAddresses() {
        return new ArrayList<>(joined.keySet());
    }

    /** The service id of the bound port (rdma_get_service_id). */
    synchronized long serviceId() {
        if (source != null && source.family() == SockAddr.AF_IB) {
            return source.sid();
        }
        return ps.serviceId(source == null ? 0 : source.port());
    }
}
