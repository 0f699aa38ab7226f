package io.ibemu.emulator.fabric;

import static io.ibemu.emulator.fabric.RequestMads.answer;
import static io.ibemu.emulator.fabric.RequestMads.dr;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ibemu.emulator.mad.Bits;
import io.ibemu.emulator.mad.GuidInfo;
import io.ibemu.emulator.mad.Mad;
import io.ibemu.emulator.mad.Method;
import io.ibemu.emulator.mad.MgmtClass;
import io.ibemu.emulator.mad.PerfAttribute;
import io.ibemu.emulator.mad.SmAttribute;
import io.ibemu.emulator.mad.SwitchInfo;
import io.ibemu.emulator.topology.DefaultFabric;
import io.ibemu.emulator.topology.LinkSpec;
import io.ibemu.emulator.topology.LinkSpeed;
import io.ibemu.emulator.topology.LinkWidth;
import io.ibemu.emulator.topology.NodeSpec;
import io.ibemu.emulator.topology.NodeType;
import io.ibemu.emulator.topology.Topology;
import io.ibemu.emulator.topology.TopologyParser;
import io.ibemu.emulator.topology.TopologyWriter;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The changes the control command makes, seen where a real port would show them. */
class FabricControlTest {
    private static final int D = Mad.SMP_DATA_OFFSET;
    private final Fabric fabric = Fabric.of(DefaultFabric.topology());
    private final Node local = fabric.node("local").orElseThrow();
    private final Node sw = fabric.node("switch").orElseThrow();
    private final List<PortEvent> events = new ArrayList<>();

    FabricControlTest() {
        fabric.addListener(events::add);
        // training at power-on flagged it; an SM's SwitchInfo Set clears it
        sw.switchTables().portStateChange = false;
    }

    private boolean switchPortStateChange() {
        byte[] r = answer(sw, 1, dr(Method.GET, SmAttribute.SWITCH_INFO, 0));
        return SwitchInfo.decode(r, D).portStateChange();
    }

    private List<PortEvent.Kind> kinds(Port p) {
        return events.stream().filter(e -> e.port() == p).map(PortEvent::kind).toList();
    }

    @Test
    void cutPullsTheCableOutOfBothEnds() {
        Port hca = local.port(1);
        Port swp = sw.port(1);
        assertFalse(switchPortStateChange());
        hca.cut();
        for (Port p : List.of(hca, swp)) {
            assertEquals(PortState.DOWN, p.state(), p.toString());
            assertEquals(PhysPortState.POLLING, p.physicalState(), p.toString());
            assertTrue(p.peer().isEmpty(), "nothing crosses a cut cable: " + p);
            assertTrue(p.isCut());
            assertEquals(1, p.counter(Port.Counter.LINK_DOWNED), p.toString());
            assertEquals(1, p.counters().linkDownedCounter());
            assertEquals(List.of(PortEvent.Kind.LINK_STATE_CHANGE, PortEvent.Kind.PORT_ERROR), kinds(p));
        }
        assertSame(swp, hca.cableEnd().orElseThrow(), "the cable is remembered");
        assertTrue(switchPortStateChange(), "a switch flags a port that went down in SwitchInfo");
        IllegalStateException again = assertThrows(IllegalStateException.class, hca::cut);
        assertTrue(again.getMessage().contains("already cut"), again.getMessage());
        assertThrows(IllegalStateException.class, () -> local.port(2).cut(), "port 2 has no cable");
    }

    @Test
    void restorePlugsItBackAndBothEndsTrain() {
        Port hca = local.port(1);
        Port swp = sw.port(1);
        swp.cut();
        events.clear();
        swp.restore();
        for (Port p : List.of(hca, swp)) {
            assertEquals(PortState.INIT, p.state(), p.toString());
            assertEquals(PhysPortState.LINK_UP, p.physicalState(), p.toString());
            assertEquals(LinkWidth.X4, p.activeWidth());
            assertEquals(LinkSpeed.QDR, p.activeSpeed());
            assertFalse(p.isCut());
            assertEquals(List.of(PortEvent.Kind.LINK_STATE_CHANGE), kinds(p));
        }
        assertSame(swp, hca.peer().orElseThrow());
        assertSame(hca, swp.peer().orElseThrow());
        IllegalStateException e = assertThrows(IllegalStateException.class, hca::restore);
        assertTrue(e.getMessage().contains("not cut"), e.getMessage());
    }

    @Test
    void aCutLinkStaysDownWhenAnSmBouncesIt() {
        Port hca = local.port(1);
        hca.cut();
        synchronized (fabric.lock()) {
            hca.bounce();
            hca.setPhysical(PhysPortState.POLLING);
        }
        assertEquals(PortState.DOWN, hca.state());
        assertEquals(PhysPortState.POLLING, hca.physicalState());
        assertEquals(PortState.DOWN, sw.port(1).state());
    }

    private static byte[] mad(int mgmtClass, int attributeId) {
        byte[] m = new byte[Mad.SIZE];
        m[1] = (byte) mgmtClass;
        m[16] = (byte) (attributeId >> 8);
        m[17] = (byte) attributeId;
        return m;
    }

    private static List<Boolean> draws(Port p, int n) {
        List<Boolean> out = new ArrayList<>();
        synchronized (p.node().fabric().lock()) {
            for (int i = 0; i < n; i++) {
                out.add(p.dropsOutgoing(mad(MgmtClass.SUBN_DIRECTED_ROUTE, SmAttribute.PORT_INFO)));
            }
        }
        return out;
    }

    @Test
    void dropRateLosesPacketsRepeatablyAndTheReceiverCountsThem() {
        Port swp = sw.port(1);
        assertFalse(draws(swp, 50).contains(true), "no drop rate, no loss");
        swp.setDropRate(0.5, -1);
        List<Boolean> first = draws(swp, 200);
        long lost = first.stream().filter(b -> b).count();
        assertTrue(lost > 60 && lost < 140, "about half of 200 lost, got " + lost);
        assertEquals(lost, local.port(1).counter(Port.Counter.RCV_ERRORS), "the far end counts each corrupt packet");
        assertEquals(lost, local.port(1).counters().portRcvErrors());

        Fabric again = Fabric.of(DefaultFabric.topology());
        Port same = again.node("switch").orElseThrow().port(1);
        same.setDropRate(0.5, -1);
        assertEquals(first, draws(same, 200), "the same rate on the same port loses the same packets");
        swp.setDropRate(0.5, -1);
        assertEquals(first, draws(swp, 200), "setting the rate again restarts the sequence");

        swp.setDropRate(1, -1);
        assertFalse(draws(swp, 20).contains(false));
        swp.setDropRate(0, -1);
        assertFalse(draws(swp, 20).contains(true), "rate 0 stops it");
        assertThrows(IllegalArgumentException.class, () -> swp.setDropRate(1.5, -1));
    }

    @Test
    void dropRateForOneAttribute() {
        Port swp = sw.port(1);
        swp.setDropRate(1, SmAttribute.PORT_INFO, MgmtClass.SUBN_LID_ROUTED, MgmtClass.SUBN_DIRECTED_ROUTE);
        synchronized (fabric.lock()) {
            assertTrue(swp.dropsOutgoing(mad(MgmtClass.SUBN_DIRECTED_ROUTE, SmAttribute.PORT_INFO)));
            assertTrue(swp.dropsOutgoing(mad(MgmtClass.SUBN_LID_ROUTED, SmAttribute.PORT_INFO)));
            assertFalse(swp.dropsOutgoing(mad(MgmtClass.SUBN_DIRECTED_ROUTE, SmAttribute.NODE_INFO)));
            assertFalse(swp.dropsOutgoing(mad(MgmtClass.PERF, SmAttribute.PORT_INFO)),
                    "PortInfo by name is an SMP attribute: a PMA MAD with id 0x15 passes");
        }
        swp.setDropRate(1, PerfAttribute.PORT_COUNTERS);
        synchronized (fabric.lock()) {
            assertTrue(swp.dropsOutgoing(mad(MgmtClass.PERF, PerfAttribute.PORT_COUNTERS)));
            assertTrue(swp.dropsOutgoing(mad(MgmtClass.SUBN_DIRECTED_ROUTE, SmAttribute.SWITCH_INFO)),
                    "an id alone matches every class");
        }
    }

    @Test
    void setCounterShowsInPortCountersAndIsBoundedByItsWidth() {
        Port p = local.port(1);
        p.setCounter(Port.Counter.SYMBOL_ERRORS, 65535);
        p.setCounter(Port.Counter.LINK_DOWNED, 3);
        p.setCounter(Port.Counter.XMIT_DATA, 1L << 40);
        assertEquals(65535, p.counters().symbolErrorCounter());
        assertEquals(3, p.counters().linkDownedCounter());
        assertEquals(0xFFFFFFFFL, p.counters().portXmitData(), "saturated in the 32-bit field");
        assertEquals(1L << 40, p.countersExtended().portXmitData());
        assertThrows(IllegalArgumentException.class, () -> p.setCounter(Port.Counter.SYMBOL_ERRORS, 65536));
        assertThrows(IllegalArgumentException.class, () -> p.setCounter(Port.Counter.LOCAL_LINK_INTEGRITY_ERRORS, 16));
        assertThrows(IllegalArgumentException.class, () -> p.setCounter(Port.Counter.RCV_ERRORS, -1));
        assertEquals("SymbolErrorCounter", Port.Counter.SYMBOL_ERRORS.perfName());
        assertEquals(15, Port.Counter.LOCAL_LINK_INTEGRITY_ERRORS.maxValue());
    }

    @Test
    void nodeGuidShowsInNodeInfoAndLookups() {
        long old = local.guid();
        fabric.setNodeGuid(local, 0x0011750000009900L);
        byte[] r = answer(local, 1, dr(Method.GET, SmAttribute.NODE_INFO, 0));
        assertEquals(0x0011750000009900L, Bits.get(r, D + 12, 0, 64));
        assertSame(local, fabric.node("0x0011750000009900").orElseThrow());
        assertTrue(fabric.node(String.format("0x%016x", old)).isEmpty());
        Node node1 = fabric.node("node1").orElseThrow();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> fabric.setNodeGuid(node1, 0x0011750000009900L));
        assertTrue(e.getMessage().contains("local"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> fabric.setNodeGuid(node1, 0));
    }

    @Test
    void portGuidShowsInNodeInfoGuidInfoAndFiresGidChange() {
        Port p = local.port(1);
        fabric.setPortGuid(p, 0x0011750000009901L);
        byte[] r = answer(local, 1, dr(Method.GET, SmAttribute.NODE_INFO, 0));
        assertEquals(0x0011750000009901L, Bits.get(r, D + 20, 0, 64));
        byte[] g = answer(local, 1, dr(Method.GET, SmAttribute.GUID_INFO, 0));
        assertEquals(0x0011750000009901L, GuidInfo.decode(g, D).guids().get(0));
        assertEquals(0x0011750000009901L, p.guids()[0]);
        assertEquals(List.of(PortEvent.Kind.GID_CHANGE), kinds(p));
        assertThrows(IllegalArgumentException.class, () -> fabric.setPortGuid(local.port(2), 0x0011750000009901L),
                "two ports cannot share a GUID");

        fabric.setPortGuid(sw.port(3), 0x0002c90000009999L);
        for (Port sp : sw.ports()) {
            assertEquals(0x0002c90000009999L, sp.guid(), "a switch's ports share port 0's GUID: " + sp);
        }
        assertEquals(0x0002c90000009999L, sw.port(0).guids()[0]);
    }

    @Test
    void lidChangeFiresLidChangeOnManagedPortsOnly() {
        Port p = local.port(1);
        p.setLid(7, 1);
        assertEquals(7, p.lid());
        assertEquals(1, p.lmc());
        assertEquals(7, p.portInfo().lid());
        assertEquals(List.of(PortEvent.Kind.LID_CHANGE), kinds(p));
        p.setLid(7, 1);
        assertEquals(1, kinds(p).size(), "no change, no event");
        assertThrows(IllegalStateException.class, () -> sw.port(2).setLid(3, 0));
        sw.port(0).setLid(3, 0);
        assertEquals(3, sw.port(0).lid());
        assertThrows(IllegalArgumentException.class, () -> p.setLid(0xC000, 0));
        assertThrows(IllegalArgumentException.class, () -> p.setLid(1, 8));
    }

    private static NodeSpec hca(String id, long guid) {
        return new NodeSpec(NodeType.CA, id, guid, guid, id + " HCA-1", 1, List.of(guid + 1), 0x1077, 0x7322, 0, 0,
                false);
    }

    @Test
    void addNodeCablesItToFreePortsAndBothEndsTrain() {
        List<Node> before = fabric.nodes();
        Node added = fabric.addNode(hca("node3", 0x0011750000000500L),
                List.of(new LinkSpec("node3", 1, "switch", 4, null, null)));
        assertEquals(4, before.size(), "a snapshot taken before does not change");
        assertEquals(5, fabric.nodes().size());
        assertSame(added, fabric.nodes().get(4));
        assertSame(added, fabric.node("node3").orElseThrow());
        assertSame(added, fabric.node("0x0011750000000500").orElseThrow());
        for (Port p : List.of(added.port(1), sw.port(4))) {
            assertEquals(PortState.INIT, p.state(), p.toString());
            assertEquals(PhysPortState.LINK_UP, p.physicalState(), p.toString());
        }
        assertSame(sw.port(4), added.port(1).peer().orElseThrow());
        assertTrue(kinds(sw.port(4)).contains(PortEvent.Kind.LINK_STATE_CHANGE));
        assertTrue(switchPortStateChange());
    }

    @Test
    void addNodeChecksEverythingBeforeChangingAnything() {
        NodeSpec spec = hca("node3", 0x0011750000000500L);
        IllegalArgumentException busy = assertThrows(IllegalArgumentException.class, () -> fabric.addNode(spec,
                List.of(new LinkSpec("node3", 1, "switch", 1, null, null))));
        assertTrue(busy.getMessage().contains("already has a cable"), busy.getMessage());
        assertThrows(IllegalArgumentException.class, () -> fabric.addNode(spec,
                List.of(new LinkSpec("node3", 1, "nobody", 1, null, null))));
        assertThrows(IllegalArgumentException.class, () -> fabric.addNode(spec,
                List.of(new LinkSpec("node3", 2, "switch", 5, null, null))), "node3 has one port");
        assertThrows(IllegalArgumentException.class, () -> fabric.addNode(hca("local", 0x0011750000000500L),
                List.of()), "id taken");
        assertThrows(IllegalArgumentException.class, () -> fabric.addNode(hca("x", local.guid()), List.of()),
                "node GUID taken");
        assertEquals(4, fabric.nodes().size());
        assertTrue(fabric.node("node3").isEmpty());
        assertEquals(PortState.DOWN, sw.port(4).state());
    }

    @Test
    void removeNodeUnplugsItsCablesAndFreesThePorts() {
        Node node1 = fabric.node("node1").orElseThrow();
        long guid = node1.guid();
        fabric.removeNode(node1);
        assertEquals(3, fabric.nodes().size());
        assertFalse(fabric.nodes().contains(node1));
        assertTrue(fabric.node("node1").isEmpty());
        assertTrue(fabric.node(String.format("0x%016x", guid)).isEmpty());
        Port freed = sw.port(2);
        assertEquals(PortState.DOWN, freed.state());
        assertEquals(PhysPortState.POLLING, freed.physicalState());
        assertTrue(freed.cableEnd().isEmpty(), "the port is free again");
        assertEquals(1, freed.counter(Port.Counter.LINK_DOWNED));
        assertTrue(kinds(freed).contains(PortEvent.Kind.PORT_ERROR));
        assertThrows(IllegalArgumentException.class, () -> fabric.removeNode(node1));
        Node back = fabric.addNode(hca("node1", guid), List.of(new LinkSpec("switch", 2, "node1", 1, null, null)));
        assertEquals(PortState.INIT, back.port(1).state());
    }

    @Test
    void connectCablesTwoFreePorts() {
        fabric.connect(local.port(2), sw.port(8), LinkWidth.X1, LinkSpeed.DDR);
        assertEquals(PhysPortState.LINK_UP, local.port(2).physicalState());
        assertEquals(LinkWidth.X1, sw.port(8).activeWidth());
        assertEquals(LinkSpeed.DDR, sw.port(8).activeSpeed());
        assertThrows(IllegalArgumentException.class, () -> fabric.connect(local.port(1), sw.port(7), null, null));
    }

    @Test
    void currentTopologyReadsBackToTheSameFabric() throws Exception {
        fabric.setNodeGuid(local, 0x0011750000009900L);
        fabric.addNode(hca("node3", 0x0011750000000500L), List.of(new LinkSpec("node3", 1, "switch", 4,
                LinkWidth.X4, LinkSpeed.EDR)));
        sw.port(2).cut();
        Topology now = fabric.currentTopology();
        Topology back = TopologyParser.parse("dump", new StringReader(TopologyWriter.ibnetdiscover(now)));
        assertEquals(5, back.nodes().size());
        assertEquals(3, back.links().size(), "the cut cable is not in it: 4 cables, one cut");
        Fabric rebuilt = Fabric.of(back);
        Node l = rebuilt.node("0x0011750000009900").orElseThrow();
        assertEquals(local.port(1).guid(), l.port(1).guid());
        Node n3 = rebuilt.node("0x0011750000000500").orElseThrow();
        assertEquals(LinkSpeed.EDR, n3.port(1).activeSpeed());
        assertEquals(rebuilt.node(String.format("0x%016x", sw.guid())).orElseThrow(),
                n3.port(1).peer().orElseThrow().node());
        assertNotEquals(PhysPortState.LINK_UP, rebuilt.node("0x0011750000000200").orElseThrow().port(1)
                .physicalState());
    }
}
