package io.ibemu.emulator.topology.generate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ibemu.emulator.topology.LinkSpec;
import io.ibemu.emulator.topology.LinkSpeed;
import io.ibemu.emulator.topology.LinkWidth;
import io.ibemu.emulator.topology.NodeSpec;
import io.ibemu.emulator.topology.NodeType;
import io.ibemu.emulator.topology.Topology;
import io.ibemu.emulator.topology.TopologyParser;
import io.ibemu.emulator.topology.TopologyWriter;
import java.io.StringReader;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FatTreeTest {
    @Test
    void twoLevelsEveryLeafReachesEverySpineEvenly() {
        FatTree ft = FatTree.of(2, 8, 10);
        Topology t = ft.build();
        // 10 hosts on leaves of 4: 3 leaves; 3 x 4 uplinks on 8-port spines: 2 spines, 2 cables each pair
        assertEquals(List.of("leaf-001", "leaf-002", "leaf-003"), Fabrics.ids(t, "leaf-"));
        assertEquals(List.of("spine-01", "spine-02"), Fabrics.ids(t, "spine-"));
        assertEquals(15, t.nodes().size());
        assertEquals(15, ft.nodeCount());
        for (String leaf : Fabrics.ids(t, "leaf-")) {
            for (String spine : Fabrics.ids(t, "spine-")) {
                assertEquals(2, Fabrics.cables(t, leaf, spine), leaf + " - " + spine);
            }
        }
        assertEquals(10 + 3 * 4, t.links().size());
        assertTrue(t.links().contains(new LinkSpec("host0010", 1, "leaf-003", 2, LinkWidth.X4, LinkSpeed.QDR)));
        assertTrue(t.links().contains(new LinkSpec("leaf-002", 7, "spine-02", 3, LinkWidth.X4, LinkSpeed.QDR)),
                "leaf ports 5..8 go up, two per spine");
        Map<String, Integer> hops = Fabrics.hops(t, "host0001");
        assertEquals(t.nodes().size(), hops.size(), "one connected fabric");
        assertEquals(4, hops.get("host0010"), "host - leaf - spine - leaf - host");
    }

    @Test
    void threeLevelsPodsSpinesAndCoreGroups() {
        FatTree ft = FatTree.of(3, 8, 40);
        FatTree.Shape s = ft.shape();
        // 10 leaves of 4 hosts; pods of at most 4 leaves: 3 pods of 4, 4, 2 leaves
        assertEquals(10, s.leaves());
        assertEquals(3, s.pods());
        assertEquals(4, s.leavesPerPod());
        assertEquals(4, s.spinesPerPod());
        Topology t = ft.build();
        assertEquals(s.switches() + 40, t.nodes().size());
        for (int pod = 0; pod < s.pods(); pod++) {
            for (int j = 0; j < s.leavesPerPod() && pod * 4 + j < s.leaves(); j++) {
                String leaf = String.format("leaf-%03d", pod * 4 + j + 1);
                for (int a = 0; a < s.spinesPerPod(); a++) {
                    String spine = String.format("spine-%03d", pod * 4 + a + 1);
                    assertEquals(s.leafSpineLinks(), Fabrics.cables(t, leaf, spine), leaf + " - " + spine);
                }
            }
        }
        for (NodeSpec n : t.nodes()) {
            if (n.id().startsWith("spine-")) {
                long down = Fabrics.ids(t, "leaf-").stream().mapToLong(l -> Fabrics.cables(t, l, n.id())).sum();
                long up = Fabrics.ids(t, "core-").stream().mapToLong(c -> Fabrics.cables(t, c, n.id())).sum();
                assertEquals(s.leavesPerPod() * s.leafSpineLinks(), up, n.id() + " has as many links up as "
                        + "a full pod sends down");
                assertTrue(down <= up, n.id());
            }
        }
        // spine a of every pod reaches every core of group a and nothing else at the core level
        for (int g = 0; g < s.coreGroups(); g++) {
            for (int c = 0; c < s.coresPerGroup(); c++) {
                String core = String.format("core-%02d", g * s.coresPerGroup() + c + 1);
                for (int pod = 0; pod < s.pods(); pod++) {
                    for (int a = 0; a < s.spinesPerPod(); a++) {
                        String spine = String.format("spine-%03d", pod * s.spinesPerPod() + a + 1);
                        assertEquals(a == g ? s.spineCoreLinks() : 0, Fabrics.cables(t, spine, core),
                                spine + " - " + core);
                    }
                }
            }
        }
        Map<String, Integer> hops = Fabrics.hops(t, "host0001");
        assertEquals(t.nodes().size(), hops.size());
        assertEquals(6, hops.get("host0040"), "across pods: host-leaf-spine-core-spine-leaf-host");
    }

    @Test
    void smallTreesUseParallelLinksUpToTheRadix() {
        FatTree.Shape two = FatTree.of(2, 36, 36).shape();
        assertEquals(1, two.spines(), "2 leaves x 18 uplinks fit one 36-port spine");
        assertEquals(18, two.leafSpineLinks());
        FatTree.Shape three = FatTree.of(3, 36, 1000).shape();
        assertEquals(7, three.spineCoreLinks());
        Topology t = FatTree.of(3, 36, 1000).build();
        for (NodeSpec n : t.nodes()) {
            if (n.type() == NodeType.SWITCH) {
                assertEquals(36, n.portCount());
            }
        }
        assertTrue(t.links().stream().allMatch(l -> l.portA() <= 36 && l.portB() <= 36));
    }

    @Test
    void dualPortHcasLeaveThePortOrBuildASecondPlane() {
        Topology unplugged = new FatTree(2, 8, 6, 4, 2, 1, LinkWidth.X4, LinkSpeed.EDR).build();
        NodeSpec h = unplugged.node("host0001").orElseThrow();
        assertEquals(2, h.portCount());
        assertEquals(List.of(h.nodeGuid() + 1, h.nodeGuid() + 2), h.portGuids());
        assertTrue(unplugged.links().stream().noneMatch(l -> l.nodeB().equals("host0001") && l.portB() == 2
                || l.nodeA().equals("host0001") && l.portA() == 2));

        FatTree dual = new FatTree(2, 8, 6, 4, 2, 2, LinkWidth.X4, LinkSpeed.EDR);
        Topology t = dual.build();
        assertEquals(6 + 2 * dual.shape().switches(), t.nodes().size());
        assertEquals(List.of("p2-leaf-001", "p2-leaf-002"), Fabrics.ids(t, "p2-leaf-"));
        assertTrue(t.links().contains(new LinkSpec("host0005", 2, "p2-leaf-002", 1, LinkWidth.X4, LinkSpeed.EDR)));
        Map<String, Integer> hops = Fabrics.hops(t, "leaf-001");
        assertEquals(2, hops.get("p2-leaf-001"), "the planes meet only in the HCAs");
        assertTrue(t.links().stream().noneMatch(l -> l.nodeA().startsWith("p2-") != l.nodeB().startsWith("p2-")
                && !l.nodeA().startsWith("host") && !l.nodeB().startsWith("host")));
    }

    @Test
    void sameParametersSameFile() {
        FatTree ft = new FatTree(3, 8, 30, 4, 2, 2, LinkWidth.X4, LinkSpeed.HDR);
        assertEquals(TopologyWriter.ibnetdiscover(ft.build()), TopologyWriter.ibnetdiscover(ft.build()));
        assertEquals(TopologyWriter.net(ft.build()), TopologyWriter.net(ft.build()));
        Topology t = ft.build();
        NodeSpec first = t.nodes().get(0);
        assertEquals("leaf-001", first.id());
        assertEquals("leaf-001", first.description());
        assertEquals(0x0002c90300000001L, first.nodeGuid());
        NodeSpec host = t.node("host0001").orElseThrow();
        assertEquals("host0001 HCA-1", host.description());
        assertEquals(0x0011750100000010L, host.nodeGuid());
        assertEquals(TopologyParser.CA_VENDOR_ID, host.vendorId(), "HCAs the daemon can play locally");
        Set<Long> guids = new HashSet<>();
        for (NodeSpec n : t.nodes()) {
            assertTrue(guids.add(n.nodeGuid()), "node GUID twice: " + n.id());
            if (n.type() == NodeType.CA) {
                for (long g : n.portGuids()) {
                    assertTrue(guids.add(g), "port GUID twice: " + n.id());
                }
            }
        }
    }

    @Test
    void generatedFabricsRoundTripThroughBothFormats() throws Exception {
        for (Topology t : List.of(new FatTree(3, 8, 30, 4, 2, 2, LinkWidth.X12, LinkSpeed.NDR).build(),
                FatTree.of(2, 36, 100).build(), SwitchChain.singleSwitch(5, 8).build())) {
            Topology net = TopologyParser.parse("generated.net", new StringReader(TopologyWriter.net(t)));
            assertEquals(t.nodes(), net.nodes(), "net keeps ids, GUIDs, descriptions and node order");
            assertEquals(Fabrics.cableSet(t), Fabrics.cableSet(net));

            Topology ibnd = TopologyParser.parse("generated", new StringReader(TopologyWriter.ibnetdiscover(t)));
            Map<Long, String> idOf = new HashMap<>();
            for (NodeSpec n : t.nodes()) {
                idOf.put(n.nodeGuid(), n.id());
            }
            Map<String, String> renamed = new HashMap<>();
            for (NodeSpec n : ibnd.nodes()) {
                renamed.put(n.id(), idOf.get(n.nodeGuid()));
            }
            List<NodeSpec> back = ibnd.nodes().stream().map(n -> new NodeSpec(n.type(), renamed.get(n.id()),
                    n.nodeGuid(), n.systemImageGuid(), n.description(), n.portCount(), n.portGuids(), n.vendorId(),
                    n.deviceId(), n.revision(), n.baseLid(), n.enhancedPort0())).toList();
            assertEquals(t.nodes(), back, "switches first, then HCAs, in the generator's order");
            List<LinkSpec> links = ibnd.links().stream().map(l -> new LinkSpec(renamed.get(l.nodeA()), l.portA(),
                    renamed.get(l.nodeB()), l.portB(), l.width(), l.speed())).toList();
            assertEquals(Fabrics.cableSet(t), Fabrics.cableSet(new Topology(back, links)));
        }
    }

    @Test
    void presetsGiveTheAdvertisedSizes() {
        assertEquals(1006, FatTree.Preset.of("1k").fatTree().nodeCount());
        assertEquals(8109, FatTree.Preset.of("8k").fatTree().nodeCount());
        assertEquals(19651, FatTree.Preset.of("20k").fatTree().nodeCount());
        Topology t = FatTree.Preset.NODES_1K.fatTree().build();
        assertEquals(1006, t.nodes().size());
        assertEquals(1006, Fabrics.hops(t, "host0001").size());
    }

    @Test
    void impossibleTreesAreRefusedWithTheLimit() {
        IllegalArgumentException two = assertThrows(IllegalArgumentException.class, () -> FatTree.of(2, 36, 1000));
        assertEquals("1000 hosts need 56 leaves, but a 2-level fat tree of radix 36 holds at most 36 leaves "
                + "(648 hosts): use 3 levels", two.getMessage());
        IllegalArgumentException three = assertThrows(IllegalArgumentException.class, () -> FatTree.of(3, 8, 200));
        assertTrue(three.getMessage().contains("at most 8 pods (128 hosts)"), three.getMessage());
        assertThrows(IllegalArgumentException.class, () -> FatTree.of(2, 255, 10));
        assertThrows(IllegalArgumentException.class, () -> FatTree.of(4, 36, 10));
        assertThrows(IllegalArgumentException.class,
                () -> new FatTree(2, 8, 6, 4, 1, 2, LinkWidth.X4, LinkSpeed.QDR), "two planes need 2-port HCAs");
        assertThrows(IllegalArgumentException.class,
                () -> new FatTree(2, 8, 6, 8, 1, 1, LinkWidth.X4, LinkSpeed.QDR), "a leaf needs a port up");
        assertThrows(IllegalArgumentException.class, () -> FatTree.Preset.of("2k"));
    }
}
