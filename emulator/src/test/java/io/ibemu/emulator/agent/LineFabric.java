package io.ibemu.emulator.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.ibemu.emulator.fabric.Fabric;
import io.ibemu.emulator.fabric.Node;
import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.mad.Field;
import io.ibemu.emulator.mad.LinearForwardingTable;
import io.ibemu.emulator.mad.Mad;
import io.ibemu.emulator.mad.MadStatus;
import io.ibemu.emulator.mad.Method;
import io.ibemu.emulator.mad.MgmtClass;
import io.ibemu.emulator.mad.PortInfo;
import io.ibemu.emulator.mad.SmAttribute;
import io.ibemu.emulator.mad.Smp;
import io.ibemu.emulator.topology.TopologyParser;
import io.ibemu.kernel.Errno;
import java.io.StringReader;
import java.util.Arrays;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A CA, two switches and another CA in a line, with a MAD layer over it and an SM-like agent
 * on the first CA's port: QP0, class 0x81, no methods, as smpquery registers. The port numbers
 * are deliberately not 1-1-1: A[1] - [1]S1[3] - [2]S2[4] - [2]B, so a path or return path that
 * names the wrong port goes nowhere. S1 port 2 and 4, S2 port 1 and 3, A[2] and B[1] are free.
 * Configuration goes through SubnSet SMPs the agent posts, as an SM would do it.
 */
final class LineFabric implements AutoCloseable {
    static final String TOPOLOGY = """
            Hca 2 "A"
            [1] "S1"[1]

            Switch 4 "S1"
            [1] "A"[1]
            [3] "S2"[2]

            Switch 4 "S2"
            [2] "S1"[3]
            [4] "B"[2]

            Hca 2 "B"
            [2] "S2"[4]
            """;
    static final int[] TO_S1 = {1};
    static final int[] TO_S2 = {1, 3};
    static final int[] TO_B = {1, 3, 4};
    static final int LID_A = 1;
    static final int LID_S1 = 2;
    static final int LID_S2 = 3;
    static final int LID_B = 4;
    static final int D = Mad.SMP_DATA_OFFSET;
    static final int QKEY_GSI = 0x80010000;

    final Fabric fabric;
    final MadLayer layer;
    final Node a;
    final Node s1;
    final Node s2;
    final Node b;
    final Recorder sm = new Recorder();
    final MadAgent smAgent;
    private int nextTid = 1;

    LineFabric() throws Exception {
        fabric = Fabric.of(TopologyParser.parse("net", new StringReader(TOPOLOGY)));
        layer = new MadLayer(fabric);
        a = fabric.node("A").orElseThrow();
        s1 = fabric.node("S1").orElseThrow();
        s2 = fabric.node("S2").orElseThrow();
        b = fabric.node("B").orElseThrow();
        smAgent = register(a.port(1), 0, new MadRegistration(MgmtClass.SUBN_DIRECTED_ROUTE, 1, new long[2], 0), sm);
    }

    MadAgent register(Port port, int qpn, MadRegistration reg, MadAgentClient client) throws Errno {
        synchronized (fabric.lock()) {
            return layer.port(port).register(qpn, reg, 0, false, client);
        }
    }

    // ---- MADs as a umad client writes them ----

    /** A directed-route request from the local port: DrSLID and DrDLID permissive, hop pointer 0. */
    static byte[] dr(int method, int attributeId, int attributeModifier, int... initialPath) {
        byte[] m = header(MgmtClass.SUBN_DIRECTED_ROUTE, method, attributeId, attributeModifier);
        m[7] = (byte) initialPath.length;
        m[32] = m[33] = m[34] = m[35] = (byte) 0xFF;
        for (int i = 0; i < initialPath.length; i++) {
            m[Smp.INITIAL_PATH + 1 + i] = (byte) initialPath[i];
        }
        return m;
    }

    static byte[] lidRouted(int method, int attributeId, int attributeModifier) {
        return header(MgmtClass.SUBN_LID_ROUTED, method, attributeId, attributeModifier);
    }

    /** PerfMgmt PortCounters with PortSelect. */
    static byte[] portCounters(int method, int portSelect) {
        byte[] m = header(MgmtClass.PERF, method, 0x0012, 0);
        m[Mad.PERF_DATA_OFFSET + 1] = (byte) portSelect;
        return m;
    }

    static byte[] header(int mgmtClass, int method, int attributeId, int attributeModifier) {
        byte[] m = new byte[Mad.SIZE];
        m[0] = 1;
        m[1] = (byte) mgmtClass;
        m[2] = 1;
        m[3] = (byte) method;
        m[16] = (byte) (attributeId >>> 8);
        m[17] = (byte) attributeId;
        m[20] = (byte) (attributeModifier >>> 24);
        m[21] = (byte) (attributeModifier >>> 16);
        m[22] = (byte) (attributeModifier >>> 8);
        m[23] = (byte) attributeModifier;
        return m;
    }

    /**
     * ib_post_send_mad as umad's write does it: the TID's upper half becomes the agent's hi_tid.
     * {@code dlid} is the LRH DLID (permissive for a DR SMP, as smpquery's address handle has it).
     */
    SendRequest post(MadAgent agent, byte[] mad, int dlid, int timeoutMs, int retries, int pkeyIndex)
            throws Errno {
        if (!Mad.isResponse(mad)) {
            Mad.setTransactionId(mad, ((long) agent.hiTid() << 32) | nextTid++);
        }
        int qpn = Mad.isSmp(mad) ? 0 : 1;
        SendRequest s = new SendRequest(agent, mad, dlid, 0, 0, qpn, qpn == 0 ? 0 : QKEY_GSI, pkeyIndex, timeoutMs,
                retries, false, null);
        synchronized (fabric.lock()) {
            agent.port().post(s);
        }
        return s;
    }

    SendRequest post(MadAgent agent, byte[] mad, int dlid, int timeoutMs, int retries) throws Errno {
        return post(agent, mad, dlid, timeoutMs, retries, 0);
    }

    /** Posts a request from the SM agent and returns its response, which must come, completing the send. */
    byte[] call(byte[] mad, int dlid) throws Exception {
        return call(smAgent, sm, mad, dlid);
    }

    byte[] call(MadAgent agent, Recorder client, byte[] mad, int dlid) throws Exception {
        SendRequest s = post(agent, mad, dlid, 1000, 0);
        Recorder.Received r = client.nextReceived(2000);
        assertNotNull(r, "no response to " + describe(mad));
        Recorder.Completion c = client.nextCompletion(2000);
        assertNotNull(c, "no completion");
        assertEquals(s, c.send());
        assertEquals(SendStatus.SUCCESS, c.status());
        assertEquals(Mad.transactionId(mad), Mad.transactionId(r.mad().message()), "the response carries the request's TID");
        return r.mad().message();
    }

    static String describe(byte[] mad) {
        return String.format("class 0x%02x method 0x%02x attr 0x%04x", Mad.mgmtClass(mad), Mad.method(mad),
                Mad.attributeId(mad));
    }

    /** A DR SubnSet that must succeed (status: only the D bit). */
    byte[] drSet(int attributeId, int attributeModifier, int[] path, byte[] data) throws Exception {
        byte[] set = dr(Method.SET, attributeId, attributeModifier, path);
        System.arraycopy(data, 0, set, D, Mad.SMP_DATA_SIZE);
        byte[] r = call(set, Smp.PERMISSIVE_LID);
        assertEquals(MadStatus.DIRECTION, Mad.status(r), "SubnSet status of attr " + attributeId);
        return r;
    }

    /** PortInfo read, edited, written back, with PortState and PortPhysicalState NoChange unless edited. */
    void setPortInfo(int[] path, int portNumber, Consumer<byte[]> edit) throws Exception {
        byte[] got = call(dr(Method.GET, SmAttribute.PORT_INFO, portNumber, path), Smp.PERMISSIVE_LID);
        assertEquals(MadStatus.DIRECTION, Mad.status(got));
        byte[] data = Arrays.copyOfRange(got, D, D + Mad.SMP_DATA_SIZE);
        field("portState").set(data, 0, PortInfo.STATE_NO_CHANGE);
        field("portPhysicalState").set(data, 0, PortInfo.PHYS_NO_CHANGE);
        edit.accept(data);
        drSet(SmAttribute.PORT_INFO, portNumber, path, data);
    }

    static Field field(String name) {
        return PortInfo.LAYOUT.field(name);
    }

    void setLid(int[] path, int portNumber, int lid, int smLid) throws Exception {
        setPortInfo(path, portNumber, d -> {
            field("lid").set(d, 0, lid);
            field("masterSmLid").set(d, 0, smLid);
        });
    }

    void setLinearForwarding(int[] path, Map<Integer, Integer> routes) throws Exception {
        byte[] data = new byte[Mad.SMP_DATA_SIZE];
        Arrays.fill(data, (byte) LinearForwardingTable.NO_PORT);
        routes.forEach((lid, port) -> data[lid] = (byte) (int) port);
        drSet(SmAttribute.LINEAR_FORWARDING_TABLE, 0, path, data);
    }

    void setState(int[] path, int portNumber, int state) throws Exception {
        setPortInfo(path, portNumber, d -> field("portState").set(d, 0, state));
    }

    /** LIDs on every port (SM LID {@code smLid}) and LinearForwardingTables for them, links left in Init. */
    void assignLids(int smLid) throws Exception {
        setLid(new int[0], 1, LID_A, smLid);
        setLid(TO_S1, 0, LID_S1, smLid);
        setLid(TO_S2, 0, LID_S2, smLid);
        setLid(TO_B, 2, LID_B, smLid);
        setLinearForwarding(TO_S1, Map.of(LID_A, 1, LID_S1, 0, LID_S2, 3, LID_B, 3));
        setLinearForwarding(TO_S2, Map.of(LID_A, 2, LID_S1, 2, LID_S2, 0, LID_B, 4));
    }

    /** Both ends of the three cables Armed, then Active. */
    void activateAll() throws Exception {
        for (int state : new int[] {PortInfo.STATE_ARMED, PortInfo.STATE_ACTIVE}) {
            activateLink(1, state);
            activateLink(2, state);
            activateLink(3, state);
        }
    }

    /** Link 1: A-S1, 2: S1-S2, 3: S2-B; both ends to {@code state}. */
    void activateLink(int link, int state) throws Exception {
        switch (link) {
            case 1 -> {
                setState(new int[0], 1, state);
                setState(TO_S1, 1, state);
            }
            case 2 -> {
                setState(TO_S1, 3, state);
                setState(TO_S2, 2, state);
            }
            case 3 -> {
                setState(TO_S2, 4, state);
                setState(TO_B, 2, state);
            }
            default -> throw new IllegalArgumentException("link " + link);
        }
    }

    void activateLink(int link) throws Exception {
        activateLink(link, PortInfo.STATE_ARMED);
        activateLink(link, PortInfo.STATE_ACTIVE);
    }

    @Override
    public void close() {
        layer.close();
    }
}
