package io.ibemu.emulator.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ibemu.emulator.mad.PortCounters;
import io.ibemu.emulator.mad.PortInfo;
import io.ibemu.emulator.topology.DefaultFabric;
import io.ibemu.emulator.topology.LinkSpeed;
import io.ibemu.emulator.topology.LinkWidth;
import io.ibemu.emulator.topology.NodeType;
import io.ibemu.emulator.topology.TopologyParser;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FabricTest {
    private final Fabric fabric = Fabric.of(DefaultFabric.topology());
    private final Node local = fabric.nodes().get(0);

    @Test
    void builtInFileOrderWithPowerOnStates() {
        assertEquals(4, fabric.nodes().size());
        assertEquals(NodeType.CA, local.type());
        assertEquals("local", local.id());
        assertEquals("ibemu-local HCA-1", local.description());
        assertEquals(0x1077, local.vendorId());
        assertEquals(0x7322, local.deviceId());
        Port p1 = local.port(1);
        Port p2 = local.port(2);
        Node sw = fabric.node("switch").orElseThrow();
        assertSame(sw.port(1), p1.peer().orElseThrow());
        assertSame(p1, sw.port(1).peer().orElseThrow());
        assertTrue(p2.peer().isEmpty());
        assertEquals(PortState.INIT, p1.state());
        assertEquals(PhysPortState.LINK_UP, p1.physicalState());
        assertEquals(0, p1.lid());
        assertEquals(LinkWidth.X4, p1.activeWidth());
        assertEquals(LinkSpeed.QDR, p1.activeSpeed());
        assertEquals(PortState.DOWN, p2.state());
        assertEquals(PhysPortState.POLLING, p2.physicalState());
        assertEquals(PortState.ACTIVE, sw.port(0).state(), "a switch's management port is always up");
        assertEquals(PortState.DOWN, sw.port(8).state());
        assertEquals(local.guid() + 1, p1.guid());
        assertEquals(64, p1.pkeys().length);
        assertEquals(0xFFFF, p1.pkeys()[0]);
        assertEquals(0, p1.pkeys()[1]);
        assertEquals(p1.guid(), p1.guids()[0]);
        assertEquals(0xFE80000000000000L, p1.subnetPrefix());
        assertTrue((p1.capabilityMask() & PortInfo.CAP_HAS_CLIENT_REREGISTRATION) != 0);
        assertEquals(0, p1.capabilityMask() & PortInfo.CAP_IS_SM);
        assertEquals(0, sw.port(3).capabilityMask(), "switch external ports report no capability mask");
        assertThrows(IllegalArgumentException.class, () -> local.port(0));
        assertThrows(IllegalArgumentException.class, () -> local.port(3));
        assertEquals(9, sw.ports().size());
    }

    @Test
    void lookupByIdOrGuid() {
        assertSame(local, fabric.node("local").orElseThrow());
        assertSame(local, fabric.node(String.format("0x%016x", local.guid())).orElseThrow());
        assertTrue(fabric.node("0x1").isEmpty());
        assertTrue(fabric.node("nobody").isEmpty());
        assertTrue(fabric.node("0xzz").isEmpty());
    }

    @Test
    void sameTopologySameFabric() {
        Fabric again = Fabric.of(DefaultFabric.topology());
        for (int i = 0; i < fabric.nodes().size(); i++) {
            Node a = fabric.nodes().get(i);
            Node b = again.nodes().get(i);
            assertEquals(a.guid(), b.guid());
            assertEquals(a.id(), b.id());
            for (Port p : a.ports()) {
                assertEquals(p.guid(), b.port(p.number()).guid());
                assertEquals(p.state(), b.port(p.number()).state());
            }
        }
    }

    @Test
    void capabilityBitsFireAnEvent() {
        List<PortEvent> events = new ArrayList<>();
        fabric.addListener(events::add);
        Port p1 = local.port(1);
        int before = p1.capabilityMask();
        p1.setCapabilityBits(PortInfo.CAP_IS_SM, 0);
        assertEquals(before | PortInfo.CAP_IS_SM, p1.capabilityMask());
        assertEquals(List.of(new PortEvent(p1, PortEvent.Kind.CAPABILITY_MASK_CHANGE)), events);
        p1.setCapabilityBits(PortInfo.CAP_IS_SM, 0);
        assertEquals(1, events.size(), "no change, no event");
        p1.setCapabilityBits(0, PortInfo.CAP_IS_SM);
        assertEquals(before, p1.capabilityMask());
    }

    @Test
    void trafficCountsWordsAndPackets() {
        Port p1 = local.port(1);
        p1.countTransmit(256);
        p1.countTransmit(256, true);
        p1.countReceive(102);
        PortCounters c = p1.counters();
        assertEquals(128, c.portXmitData());
        assertEquals(2, c.portXmitPkts());
        assertEquals(26, c.portRcvData(), "4-octet words, rounded up");
        assertEquals(1, c.portRcvPkts());
        assertEquals(1, p1.countersExtended().portMulticastXmitPkts());
        assertEquals(1, p1.countersExtended().portUnicastXmitPkts());
        assertEquals(1, p1.countersExtended().portUnicastRcvPkts());
        assertEquals(1, c.portSelect());
    }

    @Test
    void linkWidthsAndSpeedsFromTheTopology() throws Exception {
        Fabric f = Fabric.of(TopologyParser.parse("net", new StringReader("""
                Switch 4 "s"
                [1] "a"[1] w=8 e=4
                [2] "b"[1] w=16 s=2
                Hca 1 "a"
                Hca 1 "b"
                """)));
        Port a = f.node("a").orElseThrow().port(1);
        assertEquals(LinkWidth.X12, a.activeWidth());
        assertEquals(LinkSpeed.HDR, a.activeSpeed());
        PortInfo pi = a.portInfo();
        assertEquals(LinkSpeed.HDR.linkSpeedExtActive(), pi.linkSpeedExtActive());
        assertEquals(7, pi.linkSpeedExtSupported());
        assertTrue((pi.capabilityMask() & PortInfo.CAP_HAS_EXTENDED_SPEEDS) != 0);
        assertTrue((pi.capabilityMask2() & PortInfo.CAP2_IS_LINK_SPEED_HDR_SUPPORTED) != 0);
        Port port0 = f.node("s").orElseThrow().port(0);
        assertTrue((port0.capabilityMask() & PortInfo.CAP_HAS_EXTENDED_SPEEDS) != 0,
                "tools read a switch's extended speeds from port 0");
        assertEquals(7, port0.portInfo().linkSpeedExtSupported());
        assertEquals(0, f.node("s").orElseThrow().port(3).portInfo().linkSpeedExtSupported());
        Port b = f.node("b").orElseThrow().port(1);
        assertEquals(LinkWidth.X2, b.activeWidth());
        assertEquals(LinkSpeed.DDR, b.activeSpeed());
        assertEquals(0, b.portInfo().linkSpeedExtSupported());
        assertFalse((b.capabilityMask() & PortInfo.CAP_HAS_EXTENDED_SPEEDS) != 0);
    }

    @Test
    void descriptionIsCutAt64Bytes() {
        local.setDescription("é".repeat(40));
        assertEquals("é".repeat(32), local.description());
    }

    @Test
    void processRefusesBadArguments() {
        synchronized (fabric.lock()) {
            assertThrows(IllegalArgumentException.class, () -> local.process(1, new byte[100]));
            assertThrows(IllegalArgumentException.class, () -> local.process(0, new byte[256]));
        }
    }
}
