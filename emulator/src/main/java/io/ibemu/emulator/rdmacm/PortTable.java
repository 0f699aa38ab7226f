package io.ibemu.emulator.rdmacm;

import io.ibemu.kernel.Errno;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The ports of each port space of each network namespace (cma.c's per-net-namespace {@code idr}
 * of {@code rdma_bind_list}, keyed by nsfs's name of the namespace): who is bound to which port.
 * Port 0 picks a free port of the local range as cma_alloc_any_port does, walking it from one point on (the kernel starts at a random one;
 * here the walk starts where the last one stopped, so runs repeat). A port held by another id
 * whose address overlaps is refused as cma_check_port refuses it, unless both set REUSEADDR
 * (a listen clears it).
 */
final class PortTable {
    /** inet_get_local_port_range's defaults. */
    static final int LOW = 32768, HIGH = 60999;
    /** PROT_SOCK: ports below it need CAP_NET_BIND_SERVICE. */
    static final int PROT_SOCK = 1024;

    /** A port space of one network namespace (cma_pernet: each namespace has its own). */
    private record Space(String net, PortSpace ps) {
    }

    private final Map<Space, TreeMap<Integer, List<CmaId>>> bound = new HashMap<>();
    private int rover = LOW;

    /** Binds {@code id} to its source address's port (0: any free one); returns the port. */
    synchronized int bind(PortSpace ps, CmaId id, SockAddr src, boolean privileged) throws Errno {
        TreeMap<Integer, List<CmaId>> ports = bound.computeIfAbsent(new Space(id.net(), ps), k -> new TreeMap<>());
        int port = src.port();
        if (port == 0) {
            for (int i = 0; i <= HIGH - LOW; i++) {
                int p = rover;
                rover = rover == HIGH ? LOW : rover + 1;
                if (!ports.containsKey(p)) {
                    ports.put(p, new ArrayList<>(List.of(id)));
                    return p;
                }
            }
            throw Errno.of(Errno.EADDRNOTAVAIL);
        }
        if (port < PROT_SOCK && !privileged) {
            throw Errno.of(Errno.EACCES);
        }
        List<CmaId> holders = ports.computeIfAbsent(port, k -> new ArrayList<>());
        check(holders, id, src, id.reuseAddr());
        holders.add(id);
        return port;
    }

    /**
     * cma_check_port: each other holder of the port, unless both allow reuse, must not overlap:
     * an any address on either side is EADDRNOTAVAIL, the same address EADDRINUSE.
     */
    private static void check(List<CmaId> holders, CmaId id, SockAddr src, boolean reuse) throws Errno {
        for (CmaId other : holders) {
            if (other == id || reuse && other.reuseAddr()) {
                continue;
            }
            SockAddr o = other.source();
            if (src.isAny() || o.isAny()) {
                throw Errno.of(Errno.EADDRNOTAVAIL);
            }
            if (java.util.Arrays.equals(o.address(), src.address())) {
                throw Errno.of(Errno.EADDRINUSE);
            }
        }
    }

    /** rdma_listen's own cma_check_port: a listener must be alone on its address, REUSEADDR or not, and drops it. */
    synchronized void listen(PortSpace ps, CmaId id, int port) throws Errno {
        check(bound.get(new Space(id.net(), ps)).get(port), id, id.source(), false);
        id.dropReuseAddr();
    }

    /** The ids bound to {@code port} of {@code ps} (a bind list's owners), newest first as hlist_add_head keeps them. */
    synchronized List<CmaId> holders(String net, PortSpace ps, int port) {
        TreeMap<Integer, List<CmaId>> ports = bound.get(new Space(net, ps));
        List<CmaId> holders = ports == null ? null : ports.get(port);
        List<CmaId> newestFirst = holders == null ? new ArrayList<>() : new ArrayList<>(holders);
        java.util.Collections.reverse(newestFirst);
        return newestFirst;
    }

    /** cma_release_port. */
    synchronized void release(PortSpace ps, CmaId id, int port) {
        Space space = new Space(id.net(), ps);
        TreeMap<Integer, List<CmaId>> ports = bound.get(space);
        if (ports == null) {
            return;
        }
        List<CmaId> holders = ports.get(port);
        if (holders != null) {
            holders.remove(id);
            if (holders.isEmpty()) {
                ports.remove(port);
            }
        }
        if (ports.isEmpty()) {
            bound.remove(space);
        }
    }
}
