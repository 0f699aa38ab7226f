package io.ibemu.emulator.hca;

import io.ibemu.emulator.fabric.Fabric;
import io.ibemu.emulator.fabric.Node;
import io.ibemu.emulator.fabric.PacketTap;
import io.ibemu.emulator.fabric.PhysPortState;
import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.fabric.PortState;
import io.ibemu.emulator.topology.NodeType;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * How a packet crosses the fabric between HCA ports, and the state every {@link Hca} of one
 * fabric shares: the model lock and the timer thread. A packet leaves a port in Active state
 * over a LinkUp cable, crosses switches by their LinearForwardingTables (multicast DLIDs
 * 0xC000..0xFFFE by the MulticastForwardingTable), and reaches the CA port that owns the DLID
 * (IBA 7.2, 18.2.4). Each hop counts the PMA data counters; routing and counting happen under
 * the fabric lock, briefly; the memory copies happen after, outside it.
 */
public final class DataLink implements AutoCloseable {
    /** Hops a unicast packet may take before it is considered looping and dropped. */
    private static final int MAX_HOPS = 64;
    private static final int MULTICAST_BASE = 0xC000;
    private static final int PERMISSIVE_LID = 0xFFFF;

    private final Fabric fabric;
    private final Object lock = new Object();
    private final ScheduledExecutorService timer;
    private final Map<Node, Hca> hcas = new ConcurrentHashMap<>();

    public DataLink(Fabric fabric) {
        this.fabric = fabric;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "ibemu-verbs-timer");
            t.setDaemon(true);
            return t;
        });
    }

    public Fabric fabric() {
        return fabric;
    }

    /** The model lock: guards every verbs object of every HCA on this link. Taken before the fabric lock. */
    public Object lock() {
        return lock;
    }

    void attach(Hca hca) {
        hcas.put(hca.local().node(), hca);
    }

    void detach(Hca hca) {
        hcas.remove(hca.local().node(), hca);
    }

    /** The model of the HCA that owns {@code port}; null for a node no local HCA plays. */
    Hca hcaAt(Port port) {
        return hcas.get(port.node());
    }

    /** Runs {@code task} on the timer thread after {@code nanos}; the task takes the model lock itself. */
    ScheduledFuture<?> schedule(Runnable task, long nanos) {
        return timer.schedule(task, nanos, TimeUnit.NANOSECONDS);
    }

    /** Runs {@code task} on the timer thread as soon as it can (fabric listeners hand work over here). */
    void execute(Runnable task) {
        timer.execute(task);
    }

    /**
     * Sends a message of {@code traffic} from {@code from} to {@code dlid} and returns the CA
     * ports it reaches: none when it is lost (a link not Active, no route, a loop), one for a
     * unicast DLID, every port of the group for a multicast one, {@code from} itself included
     * (the HCA loops multicast back to its other QPs). A DLID that is the port's own loops back
     * inside the HCA without touching the wire or the counters.
     */
    List<Port> transmit(Port from, int dlid, Traffic traffic) {
        synchronized (fabric.lock()) {
            if (dlid >= MULTICAST_BASE && dlid != PERMISSIVE_LID) {
                return multicast(from, dlid, traffic);
            }
            if (isOwnLid(from, dlid)) {
                return carries(from) ? List.of(from) : List.of();
            }
            Port out = from;
            for (int hop = 0; hop < MAX_HOPS; hop++) {
                Port in = cross(out, traffic, false);
                if (in == null) {
                    return List.of();
                }
                Node n = in.node();
                if (n.type() != NodeType.SWITCH) {
                    return isOwnLid(in, dlid) ? List.of(in) : List.of();
                }
                int p = n.route(dlid);
                if (p == 0 || p > n.portCount() || p == in.number()) {
                    // for the switch itself, or nowhere, or back where it came from: dropped
                    in.count(Port.Counter.RCV_SWITCH_RELAY_ERRORS, 1);
                    return List.of();
                }
                out = n.port(p);
            }
            return List.of();
        }
    }

    /**
     * The ports a unicast packet from {@code from} to {@code dlid} leaves by, cable after cable as
     * {@link #transmit} routes it (where packet fault rules act); just {@code from} for a loopback
     * or a multicast DLID, whose packets meet the rules where they leave the HCA.
     */
    List<Port> path(Port from, int dlid) {
        synchronized (fabric.lock()) {
            if (dlid >= MULTICAST_BASE && dlid != PERMISSIVE_LID || isOwnLid(from, dlid)) {
                return List.of(from);
            }
            List<Port> hops = new ArrayList<>();
            Port out = from;
            for (int hop = 0; hop < MAX_HOPS; hop++) {
                hops.add(out);
                Port in = out.peer().orElse(null);
                if (in == null || in.node().type() != NodeType.SWITCH) {
                    break;
                }
                int p = in.node().route(dlid);
                if (p == 0 || p > in.node().portCount() || p == in.number()) {
                    break;
                }
                out = in.node().port(p);
            }
            return hops;
        }
    }

    private List<Port> multicast(Port from, int mlid, Traffic traffic) {
        List<Port> reached = new ArrayList<>();
        if (!carries(from)) {
            return reached;
        }
        reached.add(from);
        Set<Node> seen = new HashSet<>();
        ArrayDeque<Port> outs = new ArrayDeque<>();
        outs.add(from);
        while (!outs.isEmpty()) {
            Port in = cross(outs.poll(), traffic, true);
            if (in == null) {
                continue;
            }
            Node n = in.node();
            if (n.type() != NodeType.SWITCH) {
                reached.add(in);
                continue;
            }
            if (!seen.add(n)) {
                continue;
            }
            long[] ports = n.multicastRoute(mlid);
            for (int p = 1; p <= n.portCount(); p++) {
                if (p != in.number() && (ports[p / 64] & (1L << (p % 64))) != 0) {
                    outs.add(n.port(p));
                }
            }
        }
        return reached;
    }

    /** Puts the packets on the cable at {@code out}: the port at the other end, or null when lost. */
    private static Port cross(Port out, Traffic traffic, boolean multicast) {
        Port in = out.peer().orElse(null);
        if (in == null || !carries(out) || !carries(in)) {
            return null;
        }
        traffic.count(out, in, multicast);
        PacketTap sent = out.tap();
        PacketTap heard = in.tap();
        if (sent != null || heard != null) {
            traffic.captured(out, sent, in, heard);
        }
        return in;
    }

    /** A port passes data packets only when its link is up and its port Active (IBA 7.2). */
    static boolean carries(Port p) {
        return p.physicalState() == PhysPortState.LINK_UP && p.state() == PortState.ACTIVE;
    }

    static boolean isOwnLid(Port p, int dlid) {
        int lid = p.lid();
        return lid != 0 && dlid != PERMISSIVE_LID && dlid < MULTICAST_BASE && (dlid >>> p.lmc()) == (lid >>> p.lmc());
    }

    /** Stops the timer thread; pending retries are dropped. */
    @Override
    public void close() {
        timer.shutdownNow();
    }
}
