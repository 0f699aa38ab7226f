package io.ibemu.emulator.rdmacm;

import io.ibemu.emulator.ipoib.Ipoib;
import io.ibemu.emulator.mad.PathRecord;
import io.ibemu.emulator.sa.SaClient;
import io.ibemu.kernel.Errno;

import java.net.InetAddress;
import java.util.Arrays;
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
    /** How often an unresolved neighbour is looked at again while its resolution runs. */
    private static final long NEIGHBOUR_RETRY_MS = 10;

    /** What the id's owner does with its events (the event_handler given to rdma_create_id). */
    @FunctionalInterface
    interface Handler {
        void event(CmaId id, CmaEvent event);
    }

    final RdmaCm cm;
    final PortSpace ps;
    final int qpType;
    private volatile Handler handler;
    // guarded by this
    private CmaState state = CmaState.IDLE;
    private SockAddr source;
    private SockAddr destination;
    private CmaDevice device;
    private PortSpace boundSpace;
    private int boundPort = -1;
    private boolean reuseAddr;
    private boolean afOnly;
    private int tos = -1;
    private int ackTimeout = -1;
    private int resolution; // a new resolution makes the late answers of an older one stale
    private PathRecord path;

    CmaId(RdmaCm cm, PortSpace ps, int qpType, Handler handler) {
        this.cm = cm;
        this.ps = ps;
        this.qpType = qpType;
        this.handler = handler;
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

    void report(CmaEvent event) {
        Handler h = handler;
        if (h != null) {
            h.event(this, event);
        }
    }

    /**
     * rdma_bind_addr: an unknown family is EAFNOSUPPORT, an id not IDLE EINVAL; a specific address
     * must belong to an interface (EADDRNOTAVAIL) over an RDMA device (ENODEV) — for AF_IB, to a
     * port's GID table; then the port space's port (EADDRINUSE, EACCES below 1024 unprivileged).
     * A failure leaves the id IDLE.
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
                long sid = (serviceBase(space) | (addr.sid() & 0xffff));
                a = new SockAddr(addr.family(), addr.address(), (int) (addr.sid() & 0xffff), addr.pkey(), sid,
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

    /** cma_translate_addr + cma_acquire_dev_by_src_ip for a bind to a specific address. */
    private CmaDevice translate(SockAddr addr) throws Errno {
        if (addr.family() == SockAddr.AF_IB) {
            return cm.deviceByGid(addr.address()).orElseThrow(() -> Errno.of(Errno.ENODEV));
        }
        Ipoib.Netdev n = cm.addresses.translate(addr.inet()).orElseThrow(() -> Errno.of(Errno.ENODEV));
        return netdevDevice(n);
    }

    private CmaDevice netdevDevice(Ipoib.Netdev n) throws Errno {
        byte[] gid = Arrays.copyOfRange(n.hardwareAddress(), 4, 20);
        return cm.deviceByGid(gid, n.pkey()).orElseThrow(() -> Errno.of(Errno.ENODEV));
    }

    /** cma_select_ib_ps: the port space an AF_IB service id names; none is EPROTONOSUPPORT. */
    private PortSpace ibPortSpace(SockAddr addr) throws Errno {
        long mask = addr.sidMask();
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
        AddressResolver.Route route = cm.addresses.route(src.isAny() ? null : src.inet(), dst.inet());
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
                : cm.addresses.neighbour(route, dst);
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
            if (device != null && device.hca() != d.hca()) {
                // bound to another device than the route leads to: cma_acquire_dev refuses it
                state = CmaState.ADDR_BOUND;
                report(CmaEvent.of(CmaEvent.Type.ADDR_ERROR, -Errno.ENODEV));
                return;
            }
            device = d;
            if (src != null) {
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

    /** The route's primary path once RESOLVE_ROUTE found it, else null. */
    synchronized PathRecord path() {
        return path;
    }

    /** rdma_destroy_id: no event is reported after it returns; the port goes back to its space. */
    void destroy() {
        PortSpace space;
        int port;
        synchronized (this) {
            state = CmaState.DESTROYING;
            resolution++;
            space = boundSpace;
            port = boundPort;
            boundPort = -1;
        }
        handler = null;
        if (port >= 0) {
            cm.ports.release(space, this, port);
        }
    }

    /** The service id of the bound port (rdma_get_service_id). */
    synchronized long serviceId() {
        if (source != null && source.family() == SockAddr.AF_IB) {
            return source.sid();
        }
        return ps.serviceId(source == null ? 0 : source.port());
    }
}
