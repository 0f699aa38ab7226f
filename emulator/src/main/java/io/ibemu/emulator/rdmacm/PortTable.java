package io.ibemu.emulator.rdmacm;

import io.ibemu.kernel.Errno;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The ports of each port space (cma.c's per-net-namespace {@code idr} of {@code rdma_bind_list}):
 * who is bound to which port. Port 0 picks a free port of the local range as
 * cma_alloc_any_port does, walking it from one point on (the kernel starts at a random one;
 * here the walk starts where the last one stopped, so runs repeat). A port held by another id
 * whose address overlaps is EADDRINUSE (cma_check_port), unless both set REUSEADDR and
 * neither listens.
 */
final class PortTable {
    /** inet_get_local_port_range's defaults. */
    static final int LOW = 32768, HIGH = 60999;
    /** PROT_SOCK: ports below it need CAP_NET_BIND_SERVICE. */
    static final int PROT_SOCK = 1024;

    private final Map<PortSpace, TreeMap<Integer, List<CmaId>>> bound = new EnumMap<>(PortSpace.class);
    private int rover = LOW;

    /** Binds {@code id} to its source address's port (0: any free one); returns the port. */
    synchronized int bind(PortSpace ps, CmaId id, SockAddr src, boolean privileged) throws Errno {
        TreeMap<Integer, List<CmaId>> ports = bound.computeIfAbsent(ps, k -> new TreeMap<>());
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
        for (CmaId other : holders) {
            SockAddr o = other.source();
            boolean overlap = o == null || o.isAny() || src.isAny() || java.util.Arrays.equals(o.address(), src.address());
            boolean shared = id.reuseAddr() && other.reuseAddr() && !other.listening();
            if (overlap && !shared) {
                if (holders.isEmpty()) {
                    ports.remove(port);
                }
                throw Errno.of(Errno.EADDRINUSE);
            }
        }
        holders.add(id);
        return port;
    }

    /** cma_release_port. */
    synchronized void release(PortSpace ps, CmaId id, int port) {
        TreeMap<Integer, List<CmaId>> ports = bound.get(ps);
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
    }

    /** The ids listening on {@code port} of {@code ps} (cma_find_listener's candidates). */
    synchronized List<CmaId> listeners(PortSpace ps, int port) {
        TreeMap<Integer, List<CmaId>> ports = bound.get(ps);
        List<CmaId> holders = ports == null ? null : ports.get(port);
        return holders == null ? List.of() : holders.stream().filter(CmaId::listening).toList();
    }
}
