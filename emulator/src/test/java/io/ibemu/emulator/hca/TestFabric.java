package io.ibemu.emulator.hca;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ibemu.emulator.device.HcaIdentity;
import io.ibemu.emulator.device.LocalHca;
import io.ibemu.emulator.fabric.Fabric;
import io.ibemu.emulator.fabric.Node;
import io.ibemu.emulator.mad.Mad;
import io.ibemu.emulator.mad.Method;
import io.ibemu.emulator.mad.PortInfo;
import io.ibemu.emulator.mad.SmAttribute;
import io.ibemu.emulator.topology.TopologyParser;
import java.io.StringReader;
import java.util.Arrays;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Two local HCAs A and B through two switches, configured as an SM would (LIDs, LFTs, an MFT
 * entry, every link Active) by SubnSet SMPs handed to each node's SMA; C is an HCA on S1 that
 * no local model plays. A[1]-[1]S1[3]-[3]S2[1]-[1]B, C[1]-[2]S1.
 */
final class TestFabric implements AutoCloseable {
    static final String TOPOLOGY = """
            Hca 1 "A"
            [1] "S1"[1]

            Hca 1 "B"
            [1] "S2"[1]

            Hca 1 "C"
            [1] "S1"[2]

            Switch 4 "S1"
            [1] "A"[1]
            [2] "C"[1]
            [3] "S2"[3]

            Switch 4 "S2"
            [3] "S1"[3]
            [1] "B"[1]
            """;
    static final int LID_A = 1;
    static final int LID_B = 2;
    static final int LID_S1 = 3;
    static final int LID_S2 = 4;
    static final int LID_C = 5;
    static final int MLID = 0xC001;

    final Fabric fabric;
    final DataLink link;
    final Node nodeA;
    final Node nodeB;
    final Node nodeC;
    final Node s1;
    final Node s2;
    final Hca a;
    final Hca b;

    TestFabric() throws Exception {
        fabric = Fabric.of(TopologyParser.parse("net", new StringReader(TOPOLOGY)));
        nodeA = fabric.node("A").orElseThrow();
        nodeB = fabric.node("B").orElseThrow();
        nodeC = fabric.node("C").orElseThrow();
        s1 = fabric.node("S1").orElseThrow();
        s2 = fabric.node("S2").orElseThrow();
        setLid(nodeA, 1, LID_A);
        setLid(nodeB, 1, LID_B);
        setLid(nodeC, 1, LID_C);
        setLid(s1, 0, LID_S1);
        setLid(s2, 0, LID_S2);
        forwarding(s1, Map.of(LID_A, 1, LID_C, 2, LID_B, 3, LID_S2, 3, LID_S1, 0));
        forwarding(s2, Map.of(LID_B, 1, LID_A, 3, LID_C, 3, LID_S1, 3, LID_S2, 0));
        multicast(s1, MLID, 1 << 1 | 1 << 2 | 1 << 3);
        multicast(s2, MLID, 1 << 1 | 1 << 3);
        for (int state : new int[] {PortInfo.STATE_ARMED, PortInfo.STATE_ACTIVE}) {
            setState(nodeA, 1, state);
            setState(nodeB, 1, state);
            setState(nodeC, 1, state);
            for (int p : new int[] {1, 2, 3}) {
                setState(s1, p, state);
            }
            setState(s2, 1, state);
            setState(s2, 3, state);
        }
        link = new DataLink(fabric);
        a = new Hca(new LocalHca(0, nodeA, HcaIdentity.defaults(0), "0000:00:04.0", 0), fabric, link);
        b = new Hca(new LocalHca(1, nodeB, HcaIdentity.defaults(1), "0000:00:05.0", 1), fabric, link);
    }

    /** An SMP as an SM's LID-routed SubnGet/SubnSet, processed by the node's SMA; returns the response. */
    byte[] smp(Node node, int method, int attribute, int modifier, byte[] data) {
        byte[] m = new byte[Mad.SIZE];
        m[0] = 1;
        m[1] = 0x01;
        m[2] = 1;
        m[3] = (byte) method;
        m[16] = (byte) (attribute >>> 8);
        m[17] = (byte) attribute;
        m[20] = (byte) (modifier >>> 24);
        m[21] = (byte) (modifier >>> 16);
        m[22] = (byte) (modifier >>> 8);
        m[23] = (byte) modifier;
        if (data != null) {
            System.arraycopy(data, 0, m, Mad.SMP_DATA_OFFSET, data.length);
        }
        byte[] r;
        synchronized (fabric.lock()) {
            r = node.process(1, m).orElseThrow();
        }
        assertEquals(0, (r[4] & 0xFF) << 8 | (r[5] & 0xFF), "SMP status for attribute " + attribute);
        return r;
    }

    private void portInfo(Node node, int port, Consumer<byte[]> edit) {
        byte[] got = smp(node, Method.GET, SmAttribute.PORT_INFO, port, null);
        byte[] data = Arrays.copyOfRange(got, Mad.SMP_DATA_OFFSET, Mad.SMP_DATA_OFFSET + Mad.SMP_DATA_SIZE);
        PortInfo.LAYOUT.field("portState").set(data, 0, PortInfo.STATE_NO_CHANGE);
        PortInfo.LAYOUT.field("portPhysicalState").set(data, 0, PortInfo.PHYS_NO_CHANGE);
        edit.accept(data);
        smp(node, Method.SET, SmAttribute.PORT_INFO, port, data);
    }

    void setLid(Node node, int port, int lid) {
        portInfo(node, port, d -> {
            PortInfo.LAYOUT.field("lid").set(d, 0, lid);
            PortInfo.LAYOUT.field("masterSmLid").set(d, 0, LID_S1);
        });
    }

    void setState(Node node, int port, int state) {
        portInfo(node, port, d -> PortInfo.LAYOUT.field("portState").set(d, 0, state));
    }

    void forwarding(Node sw, Map<Integer, Integer> routes) {
        byte[] data = new byte[Mad.SMP_DATA_SIZE];
        Arrays.fill(data, (byte) 0xFF);
        routes.forEach((lid, port) -> data[lid] = (byte) (int) port);
        smp(sw, Method.SET, SmAttribute.LINEAR_FORWARDING_TABLE, 0, data);
    }

    void multicast(Node sw, int mlid, int portMask) {
        int index = mlid - 0xC000;
        byte[] data = new byte[Mad.SMP_DATA_SIZE];
        int entry = index % 32;
        data[entry * 2] = (byte) (portMask >>> 8);
        data[entry * 2 + 1] = (byte) portMask;
        smp(sw, Method.SET, SmAttribute.MULTICAST_FORWARDING_TABLE, index / 32, data);
    }

    @Override
    public void close() {
        a.close();
        b.close();
        link.close();
    }
}
