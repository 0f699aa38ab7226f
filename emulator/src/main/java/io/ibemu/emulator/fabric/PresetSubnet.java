package io.ibemu.emulator.fabric;

import io.ibemu.emulator.topology.NodeType;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A subnet left as a subnet manager's sweep would leave it, for {@code --sm preset}: from the SM
 * port, the subnet it can reach (switches, and the CA ports cabled to it; a CA relays nothing)
 * gets LIDs (the topology file's where it gives them, else in order, the SM port first, as
 * OpenSM's lid manager keeps discovered LIDs and takes its own port first), LMC 0, every cabled
 * port Active, MasterSMLID = the SM port's LID, the default partition and GID prefix, OpenSM's
 * default timers, SwitchInfo as OpenSM sets it, and min-hop (up/down where it reaches every LID)
 * LinearForwardingTables. Done once at start-up, before the MAD layer listens: no port event, no
 * trap. There is no SM afterwards: no SA, no SMInfo answers; a later OpenSM sweeps it as it
 * finds it.
 */
public final class PresetSubnet {
    /** OpenSM's defaults (opensm.conf): subnet_timeout, packet_life_time, head_of_queue_lifetime... */
    static final int SUBNET_TIMEOUT = 18;
    static final int PACKET_LIFE_TIME = 0x12;
    static final int HEAD_OF_QUEUE_LIFETIME = 0x12;
    /** leaf_head_of_queue_lifetime: switch ports facing a CA. */
    static final int LEAF_HEAD_OF_QUEUE_LIFETIME = 0x10;
    static final int VL_STALL_COUNT = 7;
    static final int MAX_UNICAST_LID = 0xBFFF;
    /** The log gives CPU time beside wall time: a shared machine's load shows only in the second. */
    private static final java.lang.management.ThreadMXBean CPU = java.lang.management.ManagementFactory.getThreadMXBean();

    /** What was configured, for the daemon's log. */
    public record Summary(int switches, int lids, int lidsFromTopology, int maxLid, int activePorts,
                          String routing, int roots, long millis, long cpuMillis) {
        public String line() {
            return String.format("preset subnet: %d LIDs (%d from the topology, highest %d), %d switches, %d ports "
                    + "Active, %s routing%s, in %d ms (%d ms of CPU)", lids, lidsFromTopology, maxLid, switches,
                    activePorts, routing, routing.equals("updn") ? " from " + roots + " root switch(es)" : "", millis,
                    cpuMillis);
        }
    }

    private PresetSubnet() {
    }

    /**
     * Configures the subnet {@code smPort} is cabled into, as if an SM on that port had swept it.
     *
     * @throws IllegalArgumentException if the SM port has no trained cable
     * @throws IllegalStateException if the subnet has more ports than unicast LIDs
     */
    public static Summary configure(Fabric fabric, Port smPort) {
        long start = System.nanoTime();
        long cpuStart = CPU.getCurrentThreadCpuTime();
        if (UnicastRouting.linkedPeer(smPort) == null) {
            throw new IllegalArgumentException(smPort + " has no cable with its link up: no subnet to configure");
        }
        synchronized (fabric.lock()) {
            Subnet subnet = discover(smPort);
            Map<Port, Integer> lids = new HashMap<>(subnet.managed.size() * 2);
            int fromFile = assignLids(fabric, smPort, subnet, lids);
            int smLid = lids.get(smPort);
            for (Port p : subnet.managed) {
                p.lid = lids.get(p);
                p.lmc = 0;
                p.smLid = smLid;
                p.smSl = 0;
                p.subnetPrefix = Port.DEFAULT_SUBNET_PREFIX;
                p.subnetTimeout = SUBNET_TIMEOUT;
                if (p.pkeys[0] != Port.DEFAULT_PKEY) {
                    int[] table = p.pkeys.clone();
                    table[0] = Port.DEFAULT_PKEY;
                    p.pkeys = table;
                }
            }
            for (Port p : subnet.linked) {
                p.state = PortState.ACTIVE;
                if (!p.isManaged()) {
                    Port peer = UnicastRouting.linkedPeer(p);
                    boolean leaf = peer != null && peer.node().type() != NodeType.SWITCH;
                    p.hoqLife = leaf ? LEAF_HEAD_OF_QUEUE_LIFETIME : HEAD_OF_QUEUE_LIFETIME;
                    p.vlStallCount = VL_STALL_COUNT;
                }
            }
            for (Node sw : subnet.switches) {
                SwitchTables t = sw.switchTables();
                t.lifeTimeValue = PACKET_LIFE_TIME;
                t.portStateChange = false; // the SM clears it once it has seen the ports (IBA 14.2.5.4)
            }
            UnicastRouting.Result routes = new UnicastRouting(subnet.switches, lids).install();
            long ms = (System.nanoTime() - start) / 1_000_000;
            long cpuMs = (CPU.getCurrentThreadCpuTime() - cpuStart) / 1_000_000;
            return new Summary(subnet.switches.size(), lids.size(), fromFile, routes.maxLid(), subnet.linked.size(),
                    routes.engine().name().toLowerCase(java.util.Locale.ROOT), routes.roots(), ms, cpuMs);
        }
    }

    /** The ports an SM on one port reaches by directed route, in the order found. */
    private static final class Subnet {
        final List<Node> switches = new ArrayList<>();
        /** Ports that hold a LID: switch port 0, CA and router ports. */
        final Set<Port> managed = new HashSet<>();
        /** Ports whose cable leads into the subnet: they go Active. */
        final List<Port> linked = new ArrayList<>();
    }

    /** Directed-route reach: through switches, never through a CA (IBA 14.2.2; smi.c). */
    private static Subnet discover(Port smPort) {
        Subnet s = new Subnet();
        Set<Node> seen = new HashSet<>();
        ArrayDeque<Port> arrivals = new ArrayDeque<>();
        arrivals.add(smPort);
        while (!arrivals.isEmpty()) {
            Port at = arrivals.poll();
            Node node = at.node();
            if (node.type() != NodeType.SWITCH) {
                if (s.managed.add(at)) {
                    s.linked.add(at);
                    Port peer = UnicastRouting.linkedPeer(at);
                    if (peer != null) {
                        arrivals.add(peer); // a switch, or a CA cabled back to back
                    }
                }
                continue;
            }
            if (!seen.add(node)) {
                continue;
            }
            s.switches.add(node);
            s.managed.add(node.port(0));
            for (Port p : node.ports()) {
                Port peer = UnicastRouting.linkedPeer(p);
                if (peer != null) {
                    s.linked.add(p);
                    arrivals.add(peer);
                }
            }
        }
        return s;
    }

    /**
     * LIDs: first those the topology gives (a switch's, a CA's on its lowest cabled port, as the
     * parser keeps them), each once; then the rest counting up from 1, the SM port first.
     * Returns how many came from the topology.
     */
    private static int assignLids(Fabric fabric, Port smPort, Subnet subnet, Map<Port, Integer> lids) {
        Map<Port, Integer> wanted = new LinkedHashMap<>();
        wanted.put(smPort, 0);
        for (Node n : fabric.nodes()) {
            Port withFileLid = null;
            if (n.type() == NodeType.SWITCH) {
                withFileLid = n.port(0);
            } else {
                for (Port p : n.ports()) {
                    if (p.cableEnd().isPresent()) {
                        withFileLid = p;
                        break;
                    }
                }
            }
            for (Port p : n.ports()) {
                if (subnet.managed.contains(p) && !wanted.containsKey(p)) {
                    wanted.put(p, 0);
                }
            }
            if (withFileLid != null && subnet.managed.contains(withFileLid)) {
                wanted.put(withFileLid, n.spec().baseLid());
            }
        }
        Set<Integer> taken = new HashSet<>();
        int fromFile = 0;
        for (Map.Entry<Port, Integer> e : wanted.entrySet()) {
            int lid = e.getValue();
            if (lid >= 1 && lid <= MAX_UNICAST_LID && taken.add(lid)) {
                lids.put(e.getKey(), lid);
                fromFile++;
            }
        }
        int next = 1;
        for (Port p : wanted.keySet()) {
            if (lids.containsKey(p)) {
                continue;
            }
            while (taken.contains(next)) {
                next++;
            }
            if (next > MAX_UNICAST_LID) {
                throw new IllegalStateException("the subnet has more ports than the " + MAX_UNICAST_LID
                        + " unicast LIDs");
            }
            taken.add(next);
            lids.put(p, next);
        }
        return fromFile;
    }
}
