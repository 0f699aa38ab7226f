package io.ibemu.emulator.fault;

import io.ibemu.emulator.fabric.Fabric;
import io.ibemu.emulator.fabric.Node;
import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.fabric.PortEvent;
import io.ibemu.emulator.topology.DefaultFabric;
import io.ibemu.emulator.topology.NodeType;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** on=link flap=: the cable out at once, back in after the duration, through the fabric's own cut and restore. */
class LinkFlapTest {

    @Test
    void aFlappedCableGoesOutAndComesBack() throws Exception {
        Fabric fabric = Fabric.of(DefaultFabric.topology());
        Node ca = fabric.nodes().stream().filter(n -> n.type() == NodeType.CA).findFirst().orElseThrow();
        Port port = ca.port(1);
        CountDownLatch back = new CountDownLatch(1);
        List<Boolean> cutSeen = new java.util.concurrent.CopyOnWriteArrayList<>();
        fabric.addListener(e -> {
            if (e.port() == port) {
                cutSeen.add(port.isCut());
            }
            if (e.port() == port && e.kind() == PortEvent.Kind.LINK_STATE_CHANGE && !port.isCut()) {
                back.countDown();
            }
        });
        Faults faults = new Faults();
        faults.attach(fabric);
        int id = faults.add("on=link link=" + ca.id() + "/1 flap=20ms");
        // a guard against a hang, not a measure of speed: the restore is due 20 ms after the cut
        assertTrue(back.await(60, TimeUnit.SECONDS), "plugged back in");
        assertTrue(!port.isCut());
        assertTrue(cutSeen.contains(true), "the port's events saw it cut first: " + cutSeen);
        assertTrue(faults.list().get(0).startsWith(id + " hits=1 matched=1 on=link link=" + ca.id() + "/1 flap=20ms"),
                faults.list().toString());
    }

    @Test
    void aLinkThatCannotFlapIsRefusedAndAddsNothing() throws Exception {
        Fabric fabric = Fabric.of(DefaultFabric.topology());
        Faults faults = new Faults();
        faults.attach(fabric);
        Node ca = fabric.nodes().stream().filter(n -> n.type() == NodeType.CA).findFirst().orElseThrow();
        for (String[] c : new String[][] {
            {"on=link link=nosuchnode/1 flap=1s", "no node 'nosuchnode'"},
            {"on=link link=" + ca.id() + "/9 flap=1s", "no port 9"},
            {"on=link flap=1s", "needs link=NODE/PORT"},
            {"on=link link=" + ca.id() + " flap=1s", "is not NODE/PORT"},
            {"on=link link=" + ca.id() + "/1", "needs an effect: flap="},
        }) {
            FaultSyntaxException e = assertThrows(FaultSyntaxException.class, () -> faults.add(c[0]), c[0]);
            assertTrue(e.getMessage().contains(c[1]), c[0] + " -> " + e.getMessage());
        }
        ca.port(1).cut();
        FaultSyntaxException e = assertThrows(FaultSyntaxException.class,
                () -> faults.add("on=link link=" + ca.id() + "/1 flap=1s"));
        assertTrue(e.getMessage().contains("already cut"), e.getMessage());
        assertEquals(List.of(), faults.list());
    }
}
