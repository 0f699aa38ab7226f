package io.ibemu.emulator.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ibemu.emulator.mad.LinearForwardingTable;
import io.ibemu.emulator.topology.LinkSpeed;
import io.ibemu.emulator.topology.LinkWidth;
import io.ibemu.emulator.topology.NodeType;
import io.ibemu.emulator.topology.Topology;
import io.ibemu.emulator.topology.TopologyParser;
import io.ibemu.emulator.topology.TopologyWriter;
import io.ibemu.emulator.topology.generate.FatTree;
import io.ibemu.emulator.topology.generate.SwitchChain;
import java.io.StringReader;
import java.io.StringWriter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@code --sm preset}: LID assignment, port states and SM fields, and the forwarding tables,
 * checked by walking every route hop by hop through the switches' own tables.
 */
class PresetSubnetTest {
    private static Fabric configured(Topology t, String smNode) {
        Fabric f = Fabric.of(t);
        PresetSubnet.configure(f, f.node(smNode).orElseThrow().port(1));
        return f;
    }

    /** The ports with a LID: those of the subnet the preset configured. */
    private static List<Port> addressed(Fabric f) {
        return managedLinked(f).stream().filter(p -> p.lid() != 0).toList();
    }

    /** Ports that hold a LID and have a trained cable (a switch's port 0 if any port of it has one). */
    private static List<Port> managedLinked(Fabric f) {
        List<Port> out = new ArrayList<>();
        for (Node n : f.nodes()) {
            if (n.type() == NodeType.SWITCH) {
                if (n.ports().stream().anyMatch(p -> UnicastRouting.linkedPeer(p) != null)) {
                    out.add(n.port(0));
                }
            } else {
                n.ports().stream().filter(p -> UnicastRouting.linkedPeer(p) != null).forEach(out::add);
            }
        }
        return out;
    }

    /**
     * The ports a packet leaves by from {@code from} to {@code dlid}, following the tables; fails
     * on a drop, a loop (more hops than nodes) or arrival at the wrong port.
     */
    private static List<Port> route(Fabric f, Port from, int dlid) {
        List<Port> out = new ArrayList<>();
        Port at = from;
        if (at.lid() == dlid) {
            return out;
        }
        Node sw = at.node();
        if (sw.type() != NodeType.SWITCH) {
            out.add(at);
            Port peer = UnicastRouting.linkedPeer(at);
            assertNotNull(peer, at + " has no link");
            if (peer.node().type() != NodeType.SWITCH) {
                assertEquals(dlid, peer.lid(), "back-to-back CA");
                return out;
            }
            sw = peer.node();
        }
        for (int hop = 0; hop <= f.nodes().size(); hop++) {
            int port = sw.route(dlid);
            assertTrue(port != LinearForwardingTable.NO_PORT, sw + " has no route to LID " + dlid + " from " + from);
            if (port == 0) {
                assertEquals(dlid, sw.port(0).lid(), sw + " delivers LID " + dlid + " to itself");
                return out;
            }
            Port leave = sw.port(port);
            out.add(leave);
            Port peer = UnicastRouting.linkedPeer(leave);
            assertNotNull(peer, leave + " routes LID " + dlid + " into no link");
            if (peer.node().type() != NodeType.SWITCH) {
                assertEquals(dlid, peer.lid(), leave + " hands LID " + dlid + " to " + peer);
                return out;
            }
            sw = peer.node();
        }
        throw new AssertionError("LID " + dlid + " from " + from + " loops");
    }

    /** Fewest links between two managed ports over the cables (a CA relays nothing). */
    private static Map<Port, Integer> hopsFrom(Port from) {
        Map<Port, Integer> dist = new HashMap<>();
        Map<Node, Integer> switchDist = new HashMap<>();
        ArrayDeque<Node> queue = new ArrayDeque<>();
        dist.put(from, 0);
        Port first = from;
        if (from.node().type() != NodeType.SWITCH) {
            Port peer = UnicastRouting.linkedPeer(from);
            if (peer.node().type() != NodeType.SWITCH) {
                dist.put(peer, 1);
                return dist;
            }
            switchDist.put(peer.node(), 1);
            queue.add(peer.node());
        } else {
            switchDist.put(first.node(), 0);
            queue.add(first.node());
        }
        while (!queue.isEmpty()) {
            Node n = queue.poll();
            int d = switchDist.get(n);
            dist.putIfAbsent(n.port(0), d);
            for (Port p : n.ports()) {
                Port peer = UnicastRouting.linkedPeer(p);
                if (peer == null) {
                    continue;
                }
                if (peer.node().type() == NodeType.SWITCH) {
                    if (switchDist.putIfAbsent(peer.node(), d + 1) == null) {
                        queue.add(peer.node());
                    }
                } else {
                    dist.putIfAbsent(peer, d + 1);
                }
            }
        }
        return dist;
    }

    /** The generator's level of a switch: leaf 1, spine 2, core 3. */
    private static int level(Node sw) {
        String id = sw.id().replaceFirst("^p2-", "");
        return id.startsWith("leaf") ? 1 : id.startsWith("spine") ? 2 : 3;
    }

    @Test
    void lidsInOrderSmPortFirstEveryCabledPortActiveSmFieldsSet() {
        Fabric f = configured(FatTree.of(2, 8, 12).build(), "host0005");
        List<Port> managed = managedLinked(f);
        Port sm = f.node("host0005").orElseThrow().port(1);
        assertEquals(1, sm.lid(), "the SM port takes LID 1, as OpenSM's own port does");
        Set<Integer> lids = new HashSet<>();
        for (Port p : managed) {
            assertTrue(lids.add(p.lid()), "LID " + p.lid() + " twice");
            assertEquals(0, p.lmc());
            assertEquals(1, p.smLid(), p + " MasterSMLID");
            assertEquals(Port.DEFAULT_SUBNET_PREFIX, p.subnetPrefix());
            assertEquals(PresetSubnet.SUBNET_TIMEOUT, p.subnetTimeout());
            assertEquals(0xFFFF, p.pkeys()[0], p + " default partition");
        }
        assertEquals(Set.copyOf(range(1, managed.size())), lids, "LIDs 1..N, none skipped");
        assertEquals(f.nodes().size(), managed.size(), "one LID per node: single-port HCAs");
        // the rest counts up in topology order, from its first node
        Node first = f.nodes().get(0);
        assertEquals(2, first.port(first.type() == NodeType.SWITCH ? 0 : 1).lid(), first + " is LID 2");
        for (Node n : f.nodes()) {
            for (Port p : n.ports()) {
                if (p.number() != 0 && p.peer().isPresent()) {
                    assertEquals(PortState.ACTIVE, p.state(), p + " state");
                    assertEquals(PhysPortState.LINK_UP, p.physicalState());
                }
            }
            if (n.type() == NodeType.SWITCH) {
                SwitchTables t = n.switchTables();
                assertEquals(managed.size(), t.linearFdbTop, "LinearFDBTop = the highest LID");
                assertEquals(PresetSubnet.PACKET_LIFE_TIME, t.lifeTimeValue);
                assertFalse(t.portStateChange, "the SM has cleared PortStateChange");
                assertEquals(managed.size() / LinearForwardingTable.PER_BLOCK + 1, t.allocatedLinearBlocks(),
                        "blocks allocated up to LinearFDBTop only");
            }
        }
    }

    private static List<Integer> range(int from, int to) {
        List<Integer> l = new ArrayList<>();
        for (int i = from; i <= to; i++) {
            l.add(i);
        }
        return l;
    }

    /**
     * Every managed port reaches every LID, loop-free, in the fewest hops; to a CA, going up then
     * only down (to a switch's own LID up/down may have no way: root to root).
     */
    private static void everyPairMinHopUpDown(Fabric f) {
        List<Port> managed = addressed(f);
        for (Port from : managed) {
            Map<Port, Integer> fewest = hopsFrom(from);
            for (Port to : managed) {
                List<Port> path = route(f, from, to.lid());
                assertEquals(fewest.get(to), path.size(), from + " to " + to + " hops: " + path);
                if (to.node().type() == NodeType.SWITCH) {
                    continue;
                }
                boolean down = false;
                int last = from.node().type() == NodeType.SWITCH ? level(from.node()) : 0;
                for (Port leave : path) {
                    Node next = UnicastRouting.linkedPeer(leave).node();
                    int lv = next.type() == NodeType.SWITCH ? level(next) : 0;
                    if (lv < last) {
                        down = true;
                    } else if (down) {
                        throw new AssertionError(from + " to " + to + " goes down, then up: " + path);
                    }
                    last = lv;
                }
            }
        }
    }

    @Test
    void twoLevelFatTreeWithParallelLinksEveryPairMinHopUpDown() {
        Fabric f = configured(FatTree.of(2, 8, 16).build(), "host0001");
        assertTrue(f.nodes().stream().filter(n -> n.id().startsWith("spine")).count() < 4,
                "few spines: parallel leaf-spine links");
        everyPairMinHopUpDown(f);
    }

    @Test
    void threeLevelFatTreeEveryPairMinHopUpDown() {
        Fabric f = configured(FatTree.of(3, 8, 40).build(), "host0017");
        assertTrue(f.nodes().stream().anyMatch(n -> n.id().startsWith("core")));
        everyPairMinHopUpDown(f);
    }

    @Test
    void balancesLidsOverParallelUpLinks() {
        // radix 8: 4 hosts and 4 uplinks per leaf; remote LIDs spread over all four
        Fabric f = configured(FatTree.of(2, 8, 16).build(), "host0001");
        Node leaf = f.node("leaf-1").or(() -> f.node("leaf-01")).or(() -> f.node("leaf-001")).orElseThrow();
        Map<Integer, Integer> perPort = new HashMap<>();
        for (Port to : managedLinked(f)) {
            int port = leaf.route(to.lid());
            if (port > 4) {
                perPort.merge(port, 1, Integer::sum);
            }
        }
        assertEquals(4, perPort.size(), "every uplink carries LIDs: " + perPort);
        int min = perPort.values().stream().mapToInt(i -> i).min().orElseThrow();
        int max = perPort.values().stream().mapToInt(i -> i).max().orElseThrow();
        assertTrue(max - min <= 1, "balanced: " + perPort);
    }

    /**
     * No cycle of channel dependencies (Dally and Seitz) among the routes to CA LIDs: a route
     * holding link a then asking for link b makes b depend on a; up/down routes never close a
     * cycle, where min-hop on a ring would.
     */
    private static void assertNoDependencyCycle(Fabric f) {
        Map<Port, Set<Port>> dependsOn = new HashMap<>();
        List<Port> managed = addressed(f);
        for (Port from : managed) {
            for (Port to : managed) {
                if (to.node().type() == NodeType.SWITCH) {
                    continue; // management traffic to a switch may take a min-hop step (root to root)
                }
                List<Port> path = route(f, from, to.lid());
                for (int i = 1; i < path.size(); i++) {
                    dependsOn.computeIfAbsent(path.get(i - 1), k -> new HashSet<>()).add(path.get(i));
                }
            }
        }
        Map<Port, Integer> mark = new HashMap<>(); // 1 on the stack, 2 done
        for (Port start : dependsOn.keySet()) {
            ArrayDeque<Object[]> stack = new ArrayDeque<>();
            if (mark.containsKey(start)) {
                continue;
            }
            mark.put(start, 1);
            stack.push(new Object[] {start, new ArrayList<>(dependsOn.getOrDefault(start, Set.of())).iterator()});
            while (!stack.isEmpty()) {
                @SuppressWarnings("unchecked")
                java.util.Iterator<Port> it = (java.util.Iterator<Port>) stack.peek()[1];
                if (!it.hasNext()) {
                    mark.put((Port) stack.pop()[0], 2);
                    continue;
                }
                Port next = it.next();
                Integer m = mark.get(next);
                if (m != null && m == 1) {
                    throw new AssertionError("channel dependency cycle through " + next);
                }
                if (m == null) {
                    mark.put(next, 1);
                    stack.push(new Object[] {next,
                        new ArrayList<>(dependsOn.getOrDefault(next, Set.of())).iterator()});
                }
            }
        }
    }

    @Test
    void ringIsRoutedUpDownWithoutDependencyCycle() {
        Fabric f = configured(new SwitchChain(6, true, 2, 1, 8, LinkWidth.X4, LinkSpeed.QDR).build(), "host0001");
        for (Port from : addressed(f)) {
            for (Port to : addressed(f)) {
                route(f, from, to.lid());
            }
        }
        assertNoDependencyCycle(f);
    }

    @Test
    void fatTreeRoutesHaveNoDependencyCycle() {
        assertNoDependencyCycle(configured(FatTree.of(3, 8, 40).build(), "host0001"));
    }

    @Test
    void lidsFromAnIbnetdiscoverFileAreKept() throws Exception {
        Fabric first = configured(FatTree.of(2, 8, 12).build(), "host0003");
        // renumber: every LID + 100, written out and read back as ibnetdiscover output
        Topology t = first.currentTopology();
        Topology shifted = new Topology(t.nodes().stream().map(n -> new io.ibemu.emulator.topology.NodeSpec(n.type(),
                n.id(), n.nodeGuid(), n.systemImageGuid(), n.description(), n.portCount(), n.portGuids(), n.vendorId(),
                n.deviceId(), n.revision(), n.baseLid() + 100, n.enhancedPort0())).toList(), t.links());
        StringWriter text = new StringWriter();
        TopologyWriter.ibnetdiscover(shifted, text);
        Topology read = TopologyParser.parse("shifted", new StringReader(text.toString()));
        Fabric f = Fabric.of(read);
        Map<Long, Integer> before = new HashMap<>();
        for (Port p : managedLinked(first)) {
            before.put(p.guid() * 256 + p.number(), p.lid());
        }
        Node sm = f.nodes().stream().filter(n -> n.guid() == first.node("host0003").orElseThrow().guid())
                .findFirst().orElseThrow();
        PresetSubnet.Summary s = PresetSubnet.configure(f, sm.port(1));
        assertEquals(before.size(), s.lidsFromTopology(), s.line());
        for (Port p : managedLinked(f)) {
            assertEquals(before.get(p.guid() * 256 + p.number()) + 100, p.lid(), p + " keeps its file LID");
            assertEquals(sm.port(1).lid(), p.smLid());
        }
        everyPairReachable(f);
    }

    private static void everyPairReachable(Fabric f) {
        for (Port from : addressed(f)) {
            for (Port to : addressed(f)) {
                route(f, from, to.lid());
            }
        }
    }

    @Test
    void aDuplicateFileLidIsReassignedAndFreeLidsFillTheGaps() throws Exception {
        String net = """
                Switch 8 "sw" # "sw" enhanced port 0 lid 3 lmc 0
                [1] "a"[1]
                [2] "b"[1]
                [3] "c"[1]
                Hca 1 "a" # "a" lid 3
                [1] "sw"[1] # lid 3 lmc 0 "sw" lid 3 4xQDR
                Hca 1 "b" # "b"
                [1] "sw"[2] # lid 7 lmc 0 "sw" lid 3 4xQDR
                Hca 1 "c" # "c"
                [1] "sw"[3]
                """;
        Fabric f = Fabric.of(TopologyParser.parse("dup", new StringReader(net)));
        PresetSubnet.Summary s = PresetSubnet.configure(f, f.node("c").orElseThrow().port(1));
        assertEquals(2, s.lidsFromTopology(), s.line());
        assertEquals(3, f.node("sw").orElseThrow().port(0).lid(), "the switch comes first in the file");
        assertEquals(7, f.node("b").orElseThrow().port(1).lid());
        assertEquals(1, f.node("c").orElseThrow().port(1).lid(), "the SM port: the first free LID");
        assertEquals(2, f.node("a").orElseThrow().port(1).lid(), "LID 3 was the switch's");
        everyPairReachable(f);
    }

    @Test
    void onlyThePlaneOfTheSmPortIsConfigured() {
        Fabric f = configured(new FatTree(2, 8, 8, 4, 2, 2, LinkWidth.X4, LinkSpeed.QDR).build(), "host0001");
        for (Node n : f.nodes()) {
            if (n.type() != NodeType.SWITCH) {
                assertTrue(n.port(1).lid() > 0);
                assertEquals(PortState.ACTIVE, n.port(1).state());
                assertEquals(0, n.port(2).lid(), n + " port 2 is on the other plane");
                assertEquals(PortState.INIT, n.port(2).state());
            } else if (n.id().startsWith("p2-")) {
                assertEquals(0, n.port(0).lid());
            }
        }
        everyPairMinHopUpDown(f);
    }

    @Test
    void aDualHomedHcaGetsALidPerPort() throws Exception {
        String net = """
                Hca 2 "h1" # "h1"
                [1] "leaf1"[1]
                [2] "leaf2"[1]
                Hca 1 "h2" # "h2"
                [1] "leaf1"[2]
                Hca 1 "h3" # "h3"
                [1] "leaf2"[2]
                Switch 8 "leaf1" # "leaf1" enhanced port 0
                [7] "spine"[1]
                [8] "spine"[2]
                Switch 8 "leaf2" # "leaf2" enhanced port 0
                [7] "spine"[3]
                [8] "spine"[4]
                Switch 8 "spine" # "spine" enhanced port 0
                """;
        Fabric f = configured(TopologyParser.parse("dual", new StringReader(net)), "h1");
        Node h1 = f.node("h1").orElseThrow();
        assertEquals(1, h1.port(1).lid());
        assertEquals(2, h1.port(2).lid());
        everyPairMinHopUpDown(f);
    }

    @Test
    void anSmPortWithoutCableIsRefused() {
        Fabric f = Fabric.of(new FatTree(2, 8, 8, 4, 2, 1, LinkWidth.X4, LinkSpeed.QDR).build());
        assertThrows(IllegalArgumentException.class,
                () -> PresetSubnet.configure(f, f.node("host0001").orElseThrow().port(2)));
    }
}
