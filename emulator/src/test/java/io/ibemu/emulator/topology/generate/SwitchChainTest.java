package io.ibemu.emulator.topology.generate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ibemu.emulator.topology.LinkSpec;
import io.ibemu.emulator.topology.LinkSpeed;
import io.ibemu.emulator.topology.LinkWidth;
import io.ibemu.emulator.topology.Topology;
import java.util.List;
import org.junit.jupiter.api.Test;

class SwitchChainTest {
    @Test
    void singleSwitchWithHosts() {
        Topology t = SwitchChain.singleSwitch(3, 36).build();
        assertEquals(List.of("switch-01", "host0001", "host0002", "host0003"),
                t.nodes().stream().map(n -> n.id()).toList());
        assertEquals(36, t.nodes().get(0).portCount());
        assertEquals(new LinkSpec("switch-01", 3, "host0003", 1, LinkWidth.X4, LinkSpeed.QDR), t.links().get(2));
        assertEquals(3, t.links().size());
    }

    @Test
    void lineWithParallelLinksBetweenNeighbours() {
        Topology t = new SwitchChain(4, false, 2, 3, 8, LinkWidth.X4, LinkSpeed.FDR).build();
        assertEquals(4 + 8, t.nodes().size());
        assertEquals(3, Fabrics.cables(t, "switch-01", "switch-02"));
        assertEquals(3, Fabrics.cables(t, "switch-03", "switch-04"));
        assertEquals(0, Fabrics.cables(t, "switch-04", "switch-01"));
        assertTrue(t.links().contains(new LinkSpec("switch-02", 6, "switch-03", 3, LinkWidth.X4, LinkSpeed.FDR)),
                "hosts on 1-2, previous switch on 3-5, next on 6-8");
        assertEquals(5, Fabrics.hops(t, "host0001").get("host0008"), "host, 4 switches, host");
    }

    @Test
    void ringClosesTheLine() {
        Topology t = new SwitchChain(5, true, 1, 1, 4, LinkWidth.X4, LinkSpeed.QDR).build();
        assertEquals(1, Fabrics.cables(t, "switch-05", "switch-01"));
        assertEquals(3, Fabrics.hops(t, "host0001").get("host0005"),
                "the short way round: host, switch-01, switch-05, host");
        assertEquals(5 + 5, t.links().size());
    }

    @Test
    void refusedShapes() {
        assertThrows(IllegalArgumentException.class, () -> new SwitchChain(2, true, 1, 1, 8, LinkWidth.X4,
                LinkSpeed.QDR));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new SwitchChain(3, false, 6, 2, 8, LinkWidth.X4, LinkSpeed.QDR));
        assertEquals("6 hosts and 2 links to each neighbour need 10 ports, more than the radix 8", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> SwitchChain.singleSwitch(37, 36));
    }
}
