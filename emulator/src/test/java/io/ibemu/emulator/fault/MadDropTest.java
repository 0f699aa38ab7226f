package io.ibemu.emulator.fault;

import io.ibemu.emulator.fabric.Port.Counter;
import io.ibemu.emulator.fabric.Fabric;
import io.ibemu.emulator.fabric.MadFault;
import io.ibemu.emulator.fabric.Node;
import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.topology.DefaultFabric;
import io.ibemu.emulator.topology.NodeType;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** on=mad drop: the wire's loss point decides by the rule's scope and when, and the far end counts the loss. */
class MadDropTest {

    private static byte[] mad(int mgmtClass, int method, int attribute) {
        byte[] m = new byte[256];
        m[0] = 1;
        m[1] = (byte) mgmtClass;
        m[2] = 1;
        m[3] = (byte) method;
        m[16] = (byte) (attribute >> 8);
        m[17] = (byte) attribute;
        return m;
    }

    @Test
    void aScopedDropRuleLosesTheMadsItNamesAndCountsThemAtTheFarEnd() throws Exception {
        Fabric fabric = Fabric.of(DefaultFabric.topology());
        Node ca = fabric.nodes().stream().filter(n -> n.type() == NodeType.CA).findFirst().orElseThrow();
        Port out = ca.port(1);
        Port far = out.peer().orElseThrow();
        Faults faults = new Faults();
        faults.attach(fabric);
        faults.add("on=mad drop node=" + ca.id() + " port=1 class=0x81 attr=0x15 every=2");
        long before = far.counter(Counter.RCV_ERRORS);
        List<Boolean> lost = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            lost.add(out.dropsOutgoing(mad(0x81, 0x81, 0x15)));
        }
        assertEquals(List.of(false, true, false, true), lost);
        assertEquals(false, out.dropsOutgoing(mad(0x81, 0x81, 0x11)), "another attribute");
        assertEquals(false, out.dropsOutgoing(mad(0x01, 0x81, 0x15)), "another class");
        assertEquals(false, far.dropsOutgoing(mad(0x81, 0x81, 0x15)), "the other end of the cable");
        assertEquals(before + 2, far.counter(Counter.RCV_ERRORS));
    }

    @Test
    void dupDelayAndCorruptRulesGiveTheWireTheirFate() throws Exception {
        Fabric fabric = Fabric.of(DefaultFabric.topology());
        Node ca = fabric.nodes().stream().filter(n -> n.type() == NodeType.CA).findFirst().orElseThrow();
        Port out = ca.port(1);
        Port far = out.peer().orElseThrow();
        Faults faults = new Faults();
        faults.attach(fabric);
        faults.add("on=mad dup attr=0x11");
        faults.add("on=mad delay=250us attr=0x12");
        faults.add("on=mad corrupt attr=0x13");
        long before = far.counter(Counter.RCV_ERRORS);
        assertEquals(MadFault.Fate.DUP, out.outgoing(mad(0x81, 0x81, 0x11)));
        assertEquals(MadFault.Fate.delay(250_000), out.outgoing(mad(0x81, 0x81, 0x12)));
        assertEquals(MadFault.Fate.LOST, out.outgoing(mad(0x81, 0x81, 0x13)));
        assertEquals(MadFault.Fate.PASS, out.outgoing(mad(0x81, 0x81, 0x15)));
        assertEquals(before + 1, far.counter(Counter.RCV_ERRORS), "only the corrupt one arrives bad");
    }

    @Test
    void aSeededDropRateLosesTheSameMadsEachRun() throws Exception {
        List<List<Integer>> runs = new ArrayList<>();
        for (int run = 0; run < 2; run++) {
            Fabric fabric = Fabric.of(DefaultFabric.topology());
            Node ca = fabric.nodes().stream().filter(n -> n.type() == NodeType.CA).findFirst().orElseThrow();
            Faults faults = new Faults();
            faults.attach(fabric);
            faults.add("on=mad drop prob=0.2 seed=11");
            List<Integer> lost = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                if (ca.port(1).dropsOutgoing(mad(0x81, 0x01, 0x15))) {
                    lost.add(i);
                }
            }
            runs.add(lost);
        }
        assertEquals(runs.get(0), runs.get(1));
        assertEquals(true, runs.get(0).size() > 15 && runs.get(0).size() < 70, runs.get(0).toString());
    }
}
