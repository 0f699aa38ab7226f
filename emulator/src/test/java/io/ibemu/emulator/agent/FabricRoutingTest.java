package io.ibemu.emulator.agent;

import static io.ibemu.emulator.agent.LineFabric.D;
import static io.ibemu.emulator.agent.LineFabric.LID_A;
import static io.ibemu.emulator.agent.LineFabric.LID_B;
import static io.ibemu.emulator.agent.LineFabric.LID_S1;
import static io.ibemu.emulator.agent.LineFabric.LID_S2;
import static io.ibemu.emulator.agent.LineFabric.TO_B;
import static io.ibemu.emulator.agent.LineFabric.TO_S1;
import static io.ibemu.emulator.agent.LineFabric.TO_S2;
import static io.ibemu.emulator.agent.LineFabric.dr;
import static io.ibemu.emulator.agent.LineFabric.lidRouted;
import static io.ibemu.emulator.agent.LineFabric.portCounters;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ibemu.emulator.fabric.Node;
import io.ibemu.emulator.fabric.Port.Counter;
import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.mad.Mad;
import io.ibemu.emulator.mad.MadStatus;
import io.ibemu.emulator.mad.Method;
import io.ibemu.emulator.mad.MgmtClass;
import io.ibemu.emulator.mad.NodeInfo;
import io.ibemu.emulator.mad.PortCounters;
import io.ibemu.emulator.mad.SmAttribute;
import io.ibemu.emulator.mad.Smp;
import io.ibemu.kernel.Errno;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * MADs posted on a CA's QP0/QP1 agent crossing a fabric of A - S1 - S2 - B: directed routes of
 * 0..3 hops and the ways they fail, then LID routing through the switches' forwarding tables
 * (SMPs, PerfMgmt, no route, link states, loopback, P_Key, drops), the PMA data counters of every
 * crossed port, and directed-route SMPs with a LID-routed head and tail.
 */
class FabricRoutingTest {
    /** Every timeout here is short: the fabric answers synchronously or never. */
    private static final int TIMEOUT_MS = 40;

    private LineFabric f;

    @BeforeEach
    void build() throws Exception {
        f = new LineFabric();
    }

    @AfterEach
    void close() {
        f.close();
    }

    private static NodeInfo nodeInfo(byte[] response) {
        return NodeInfo.decode(response, D);
    }

    private static int[] returnPath(byte[] m, int hops) {
        int[] r = new int[hops];
        for (int i = 0; i < hops; i++) {
            r[i] = Smp.returnPath(m, i + 1);
        }
        return r;
    }

    private static int[] initialPath(byte[] m, int hops) {
        int[] r = new int[hops];
        for (int i = 0; i < hops; i++) {
            r[i] = Smp.initialPath(m, i + 1);
        }
        return r;
    }

    // ---- directed route ----

    @ParameterizedTest(name = "{0} hops")
    @ValueSource(ints = {0, 1, 2, 3})
    void directedRouteNodeInfo(int hops) throws Exception {
        int[] path = Arrays.copyOf(TO_B, hops);
        Node[] far = {f.a, f.s1, f.s2, f.b};
        int[] arrivalPort = {1, 1, 2, 2};
        byte[] request = dr(Method.GET, SmAttribute.NODE_INFO, 0, path);

        byte[] r = f.call(request, Smp.PERMISSIVE_LID);

        assertEquals(MgmtClass.SUBN_DIRECTED_ROUTE, Mad.mgmtClass(r));
        assertEquals(Method.GET_RESP, Mad.method(r));
        assertEquals(MadStatus.DIRECTION, Mad.status(r), "D bit set, status success");
        assertTrue(Smp.direction(r));
        assertEquals(hops, Smp.hopCount(r));
        if (hops > 0) {
            assertEquals(0, Smp.hopPointer(r), "back at a permissive DrSLID: hop pointer 0 (C14-13:3)");
        }
        assertEquals(Smp.PERMISSIVE_LID, Smp.drSlid(r));
        assertEquals(Smp.PERMISSIVE_LID, Smp.drDlid(r));
        assertArrayEquals(path, initialPath(r, hops), "initial path untouched");
        assertArrayEquals(Arrays.copyOf(new int[] {1, 2, 2}, hops), returnPath(r, hops),
                "return path: the arrival port at each hop");
        NodeInfo info = nodeInfo(r);
        Node node = far[hops];
        assertEquals(node.guid(), info.nodeGuid());
        assertEquals(node.type().code(), info.nodeType());
        assertEquals(arrivalPort[hops], info.localPortNumber(), "LocalPortNum: the port the SMP came in on");
        Port infoPort = node.type() == io.ibemu.emulator.topology.NodeType.SWITCH ? node.port(0)
                : node.port(arrivalPort[hops]);
        assertEquals(infoPort.guid(), info.portGuid());
    }

    @Test
    void directedRouteCrossesInitLinksAndCountsEveryPort() throws Exception {
        Map<Port, long[]> before = counters();
        f.call(dr(Method.GET, SmAttribute.NODE_INFO, 0, TO_B), Smp.PERMISSIVE_LID);
        assertCrossed(before, List.of(f.a.port(1), f.s1.port(1), f.s1.port(3), f.s2.port(2), f.s2.port(4),
                f.b.port(2)));
    }

    /** Paths that lead nowhere: nothing comes back and the send ends in a timeout after its retries. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"1/9", "1/3/5", "1/2", "1/3/1", "1/3/4/1", "1/3/4/1/1"})
    void pathsThatLeadNowhereTimeOut(String dashed) throws Exception {
        // 1/9: S1 has no port 9 (C14-9:2 checks the next port); 1/3/5: nor has S2 a port 5;
        // 1/2 and 1/3/1: ports without a cable; 1/3/4/1 and longer: B, a CA, as an intermediate hop
        int[] path = Arrays.stream(dashed.split("/")).mapToInt(Integer::parseInt).toArray();
        long sentByA = f.a.port(1).counter(Counter.XMIT_PKTS);
        long start = System.nanoTime();
        SendRequest s = f.post(f.smAgent, dr(Method.GET, SmAttribute.NODE_INFO, 0, path), Smp.PERMISSIVE_LID,
                TIMEOUT_MS, 1);

        Recorder.Completion c = f.sm.nextCompletion(5000);
        assertNotNull(c, "the send completes");
        assertEquals(s, c.send());
        assertEquals(SendStatus.RESPONSE_TIMEOUT, c.status());
        assertTrue(c.atNanos() - start >= TimeUnit.MILLISECONDS.toNanos(2 * TIMEOUT_MS),
                "not before timeout_ms * (retries + 1)");
        assertNull(f.sm.nextReceived(0), "no response");
        assertEquals(sentByA + 2, f.a.port(1).counter(Counter.XMIT_PKTS), "sent once and retried once");
    }

    @Test
    void pathNotStartingAtTheSendingPortIsRefused() throws Exception {
        // smi_handle_dr_smp_send fails at the originator: ib_post_send_mad answers EINVAL
        Errno e = assertThrows(Errno.class,
                () -> f.post(f.smAgent, dr(Method.GET, SmAttribute.NODE_INFO, 0, 2, 1), Smp.PERMISSIVE_LID, 100, 0));
        assertEquals(Errno.EINVAL, e.code());
        assertNull(f.sm.nextCompletion(0));
        assertEquals(0, f.a.port(1).counter(Counter.XMIT_PKTS));
    }

    @Test
    void hopCount64IsRefused() {
        int[] path = new int[64];
        Arrays.fill(path, 1);
        byte[] m = dr(Method.GET, SmAttribute.NODE_INFO, 0, Arrays.copyOf(path, 63));
        m[7] = 64; // C14-6
        Errno e = assertThrows(Errno.class, () -> f.post(f.smAgent, m, Smp.PERMISSIVE_LID, 100, 0));
        assertEquals(Errno.EINVAL, e.code());
    }

    // ---- LID routing ----

    @Test
    void lidRoutedSubnGetReachesEveryNodeThroughTheForwardingTables() throws Exception {
        f.assignLids(0);
        Object[][] targets = {{LID_S1, f.s1, 1}, {LID_S2, f.s2, 2}, {LID_B, f.b, 2}};
        for (Object[] t : targets) {
            int lid = (int) t[0];
            Node node = (Node) t[1];
            SendRequest s = f.post(f.smAgent, lidRouted(Method.GET, SmAttribute.NODE_INFO, 0), lid, 1000, 0);
            Recorder.Received r = f.sm.nextReceived(1000);
            assertNotNull(r, "response from LID " + lid);
            byte[] m = r.mad().message();
            assertEquals(MgmtClass.SUBN_LID_ROUTED, Mad.mgmtClass(m));
            assertEquals(Method.GET_RESP, Mad.method(m));
            assertEquals(0, Mad.status(m), "LID-routed: no D bit");
            assertEquals(node.guid(), nodeInfo(m).nodeGuid(), "LID " + lid);
            assertEquals((int) t[2], nodeInfo(m).localPortNumber(),
                    "a switch's port 0 answers, with the external port the SMP arrived on");
            assertEquals(lid, r.mad().slid(), "SLID: the responder's LID");
            assertEquals(0, r.mad().srcQp());
            Recorder.Completion c = f.sm.nextCompletion(1000);
            assertEquals(s, c.send());
            assertEquals(SendStatus.SUCCESS, c.status());
        }
    }

    @Test
    void perfMgmtGetCrossesActiveLinksToTheFarPma() throws Exception {
        f.assignLids(0);
        f.activateAll();
        Recorder perf = new Recorder();
        MadAgent gsi = f.register(f.a.port(1), 1, new MadRegistration(MgmtClass.PERF, 1, new long[2], 0), perf);
        Port far = f.b.port(2);

        SendRequest s = f.post(gsi, portCounters(Method.GET, 2), LID_B, 1000, 0);
        Recorder.Received r = perf.nextReceived(1000);
        assertNotNull(r, "PortCounters response");
        assertEquals(SendStatus.SUCCESS, perf.nextCompletion(1000).status());
        assertNull(f.sm.nextReceived(0), "the response went to the agent that sent the request");
        byte[] m = r.mad().message();
        assertEquals(MgmtClass.PERF, Mad.mgmtClass(m));
        assertEquals(Method.GET_RESP, Mad.method(m));
        assertEquals(0, Mad.status(m));
        assertEquals(Mad.transactionId(s.message()), Mad.transactionId(m));
        assertEquals(LID_B, r.mad().slid());
        assertEquals(1, r.mad().srcQp(), "answered from QP1");
        PortCounters pc = PortCounters.decode(m, Mad.PERF_DATA_OFFSET);
        assertEquals(2, pc.portSelect());
        // the PMA read the counters after the request arrived and before its response left
        assertEquals(far.counter(Counter.RCV_DATA), pc.portRcvData());
        assertEquals(far.counter(Counter.RCV_PKTS), pc.portRcvPkts());
        assertEquals(far.counter(Counter.XMIT_DATA) - 72, pc.portXmitData());
        assertEquals(far.counter(Counter.XMIT_PKTS) - 1, pc.portXmitPkts());
    }

    @Test
    void everyCrossedPortCounts72WordsAndOnePacketEachWay() throws Exception {
        f.assignLids(0);
        f.activateAll();
        Recorder perf = new Recorder();
        MadAgent gsi = f.register(f.a.port(1), 1, new MadRegistration(MgmtClass.PERF, 1, new long[2], 0), perf);
        List<Port> path = List.of(f.a.port(1), f.s1.port(1), f.s1.port(3), f.s2.port(2), f.s2.port(4), f.b.port(2));

        Map<Port, long[]> before = counters();
        f.call(lidRouted(Method.GET, SmAttribute.NODE_INFO, 0), LID_B);
        assertCrossed(before, path);

        before = counters();
        f.call(gsi, perf, portCounters(Method.GET, 2), LID_B);
        assertCrossed(before, path);

        before = counters();
        f.call(lidRouted(Method.GET, SmAttribute.NODE_INFO, 0), LID_S1);
        assertCrossed(before, List.of(f.a.port(1), f.s1.port(1)));
    }

    @Test
    void aLidWithoutRouteIsDroppedAndCountedAsSwitchRelayError() throws Exception {
        f.assignLids(0);
        f.activateAll();
        long before = f.s1.port(1).counter(Counter.RCV_SWITCH_RELAY_ERRORS);
        long onward = f.s1.port(3).counter(Counter.XMIT_PKTS);
        SendRequest s = f.post(f.smAgent, lidRouted(Method.GET, SmAttribute.NODE_INFO, 0), 9, TIMEOUT_MS, 0);
        Recorder.Completion c = f.sm.nextCompletion(5000);
        assertEquals(s, c.send());
        assertEquals(SendStatus.RESPONSE_TIMEOUT, c.status());
        assertNull(f.sm.nextReceived(0));
        assertEquals(before + 1, f.s1.port(1).counter(Counter.RCV_SWITCH_RELAY_ERRORS),
                "counted on the ingress port");
        assertEquals(onward, f.s1.port(3).counter(Counter.XMIT_PKTS), "nothing went further");

        // and a PerfMgmt Get to S1 reads it back, as perfquery would
        Recorder perf = new Recorder();
        MadAgent gsi = f.register(f.a.port(1), 1, new MadRegistration(MgmtClass.PERF, 1, new long[2], 0), perf);
        byte[] r = f.call(gsi, perf, portCounters(Method.GET, 1), LID_S1);
        assertEquals(0, Mad.status(r));
        assertEquals(before + 1, PortCounters.decode(r, Mad.PERF_DATA_OFFSET).portRcvSwitchRelayErrors());
    }

    /**
     * PortRcvSwitchRelayErrors counts packets the relay discards for "DLID mapping, VL mapping,
     * looping (output port = input port)" (IBA PortCounters): a forwarding table that sends a
     * LID back out the port it came in by loops, and the packet goes no further.
     */
    @Test
    void aRouteBackOutTheIngressPortIsALoopAndARelayError() throws Exception {
        f.assignLids(0);
        f.setLinearForwarding(TO_S1, Map.of(LID_A, 1, LID_S1, 0, LID_S2, 3, LID_B, 3, 5, 1));
        long errors = f.s1.port(1).counter(Counter.RCV_SWITCH_RELAY_ERRORS);
        long back = f.s1.port(1).counter(Counter.XMIT_PKTS);
        assertTimesOut(f.smAgent, f.sm, lidRouted(Method.GET, SmAttribute.NODE_INFO, 0), 5);
        assertEquals(errors + 1, f.s1.port(1).counter(Counter.RCV_SWITCH_RELAY_ERRORS));
        assertEquals(back, f.s1.port(1).counter(Counter.XMIT_PKTS), "not relayed back where it came from");
    }

    @Test
    void nonSmpsNeedActiveLinksWhileSmpsCrossInit() throws Exception {
        f.assignLids(0);
        Recorder perf = new Recorder();
        MadAgent gsi = f.register(f.a.port(1), 1, new MadRegistration(MgmtClass.PERF, 1, new long[2], 0), perf);

        // all links Init: the SMP goes through, the PerfMgmt Get does not even leave A
        f.call(lidRouted(Method.GET, SmAttribute.NODE_INFO, 0), LID_B);
        long aSent = f.a.port(1).counter(Counter.XMIT_PKTS);
        assertTimesOut(gsi, perf, portCounters(Method.GET, 2), LID_B);
        assertEquals(aSent, f.a.port(1).counter(Counter.XMIT_PKTS), "A's Init port sends no GSI packet");

        // A-S1 and S1-S2 Active, S2-B still Init: it stops at S2's egress
        f.activateLink(1);
        f.activateLink(2);
        long s2In = f.s2.port(2).counter(Counter.RCV_PKTS);
        long s2Out = f.s2.port(4).counter(Counter.XMIT_PKTS);
        assertTimesOut(gsi, perf, portCounters(Method.GET, 2), LID_B);
        assertEquals(s2In + 1, f.s2.port(2).counter(Counter.RCV_PKTS), "reached S2 over Active links");
        assertEquals(s2Out, f.s2.port(4).counter(Counter.XMIT_PKTS), "not onto the Init link");

        // only one end Active is not enough either
        f.setState(TO_S2, 4, io.ibemu.emulator.mad.PortInfo.STATE_ARMED);
        f.setState(TO_S2, 4, io.ibemu.emulator.mad.PortInfo.STATE_ACTIVE);
        assertTimesOut(gsi, perf, portCounters(Method.GET, 2), LID_B);
        assertEquals(s2Out, f.s2.port(4).counter(Counter.XMIT_PKTS), "B's end is still Init");

        f.setState(TO_B, 2, io.ibemu.emulator.mad.PortInfo.STATE_ARMED);
        f.setState(TO_B, 2, io.ibemu.emulator.mad.PortInfo.STATE_ACTIVE);
        byte[] r = f.call(gsi, perf, portCounters(Method.GET, 2), LID_B);
        assertEquals(0, Mad.status(r));
        // and SMPs still cross after activation
        assertEquals(f.b.guid(), nodeInfo(f.call(lidRouted(Method.GET, SmAttribute.NODE_INFO, 0), LID_B)).nodeGuid());
    }

    @Test
    void aCutCableStopsBothKindsOfMad() throws Exception {
        f.assignLids(0);
        f.activateAll();
        synchronized (f.fabric.lock()) {
            f.s1.port(3).cut();
        }
        assertTimesOut(f.smAgent, f.sm, lidRouted(Method.GET, SmAttribute.NODE_INFO, 0), LID_B);
        assertTimesOut(f.smAgent, f.sm, dr(Method.GET, SmAttribute.NODE_INFO, 0, TO_B), Smp.PERMISSIVE_LID);
        assertEquals(f.s1.guid(), nodeInfo(f.call(dr(Method.GET, SmAttribute.NODE_INFO, 0, TO_S1),
                Smp.PERMISSIVE_LID)).nodeGuid(), "the near side still answers");
    }

    @Test
    void aPacketForTheSendersOwnLidLoopsBackWithoutTouchingTheCable() throws Exception {
        f.assignLids(0);
        Map<Port, long[]> before = counters();
        byte[] r = f.call(lidRouted(Method.GET, SmAttribute.NODE_INFO, 0), LID_A);
        assertEquals(f.a.guid(), nodeInfo(r).nodeGuid());
        assertEquals(1, nodeInfo(r).localPortNumber());
        assertCrossed(before, List.of());
    }

    @Test
    void aPKeyTheReceiverLacksIsDroppedAndCountedInPKeyViolations() throws Exception {
        f.assignLids(0);
        f.activateAll();
        // A's P_Key table gets a full member of partition 2 at index 1; B has only the default
        byte[] table = new byte[Mad.SMP_DATA_SIZE];
        table[0] = (byte) 0xFF;
        table[1] = (byte) 0xFF;
        table[2] = (byte) 0x80;
        table[3] = 0x02;
        f.drSet(SmAttribute.P_KEY_TABLE, 0, new int[0], table);
        Recorder perf = new Recorder();
        MadAgent gsi = f.register(f.a.port(1), 1, new MadRegistration(MgmtClass.PERF, 1, new long[2], 0), perf);

        long arrived = f.b.port(2).counter(Counter.RCV_PKTS);
        f.post(gsi, portCounters(Method.GET, 2), LID_B, TIMEOUT_MS, 0, 1);
        assertEquals(SendStatus.RESPONSE_TIMEOUT, perf.nextCompletion(5000).status());
        assertNull(perf.nextReceived(0));
        assertEquals(arrived + 1, f.b.port(2).counter(Counter.RCV_PKTS), "it reached B's port");
        assertEquals(1, f.b.port(2).portInfo().pKeyViolations(), "and failed its P_Key check");
        assertEquals(0, f.s1.port(1).portInfo().pKeyViolations(), "switch ports check nothing");

        // the default P_Key (index 0) passes
        assertEquals(0, Mad.status(f.call(gsi, perf, portCounters(Method.GET, 2), LID_B)));
        assertEquals(1, f.b.port(2).portInfo().pKeyViolations());
    }

    @Test
    void aDropRateLosesThePacketAndTheReceiverCountsARcvError() throws Exception {
        f.assignLids(0);
        f.s1.port(3).setDropRate(1.0, -1);
        long errors = f.s2.port(2).counter(Counter.RCV_ERRORS);
        long beyond = f.s2.port(4).counter(Counter.XMIT_PKTS);
        assertTimesOut(f.smAgent, f.sm, lidRouted(Method.GET, SmAttribute.NODE_INFO, 0), LID_B);
        assertEquals(errors + 1, f.s2.port(2).counter(Counter.RCV_ERRORS), "the far end counts PortRcvErrors");
        assertEquals(beyond, f.s2.port(4).counter(Counter.XMIT_PKTS), "and relays nothing");
        f.s1.port(3).setDropRate(0, -1);
        f.call(lidRouted(Method.GET, SmAttribute.NODE_INFO, 0), LID_B);
    }

    @Test
    void anUnmatchedGetIsAnsweredUnsupported() throws Exception {
        f.assignLids(0);
        f.activateAll();
        Recorder gsiClient = new Recorder();
        MadAgent gsi = f.register(f.a.port(1), 1, null, gsiClient);
        // a Get of a class nobody on B serves (Congestion Control, 0x21)
        byte[] r = f.call(gsi, gsiClient, LineFabric.header(0x21, Method.GET, 0x0011, 0), LID_B);
        assertEquals(Method.GET_RESP, Mad.method(r));
        assertEquals(MadStatus.UNSUPPORTED_METHOD_ATTRIBUTE, Mad.status(r));
    }

    // ---- directed route with LID-routed parts ----

    /**
     * DrSLID = A's LID: the SMP goes LID-routed to the switch where its directed-route part starts
     * (the head), follows the initial path from there, and its response, at the end of the return
     * path, goes LID-routed to DrSLID (the tail).
     */
    @ParameterizedTest(name = "DR part starts at S{0}")
    @ValueSource(ints = {1, 2})
    void directedRouteWithLidRoutedHeadAndTail(int startSwitch) throws Exception {
        f.assignLids(0);
        int[] path = startSwitch == 1 ? new int[] {3, 4} : new int[] {4};
        int startLid = startSwitch == 1 ? LID_S1 : LID_S2;
        byte[] request = dr(Method.GET, SmAttribute.NODE_INFO, 0, path);
        request[32] = 0;
        request[33] = (byte) LID_A; // DrSLID
        Map<Port, long[]> before = counters();

        byte[] r = f.call(request, startLid);

        assertEquals(MadStatus.DIRECTION, Mad.status(r));
        assertTrue(Smp.direction(r));
        assertEquals(0, Smp.hopPointer(r), "the tail: hop pointer 0");
        assertEquals(path.length, Smp.hopCount(r));
        assertEquals(LID_A, Smp.drSlid(r));
        assertEquals(Smp.PERMISSIVE_LID, Smp.drDlid(r));
        assertArrayEquals(path, initialPath(r, path.length));
        assertArrayEquals(startSwitch == 1 ? new int[] {2, 2} : new int[] {2}, returnPath(r, path.length),
                "arrival ports after the head: S2's 2 (from S1), then B's 2");
        NodeInfo info = nodeInfo(r);
        assertEquals(f.b.guid(), info.nodeGuid());
        assertEquals(2, info.localPortNumber());
        assertCrossed(before, List.of(f.a.port(1), f.s1.port(1), f.s1.port(3), f.s2.port(2), f.s2.port(4),
                f.b.port(2)));
    }

    @Test
    void aLidRoutedHeadIsNotAnsweredByTheSwitchItTargets() throws Exception {
        f.assignLids(0);
        // hop count 1 from S1 out port 1 comes straight back to A, a CA at the end of its path
        byte[] request = dr(Method.GET, SmAttribute.NODE_INFO, 0, 1);
        request[32] = 0;
        request[33] = (byte) LID_A;
        byte[] r = f.call(request, LID_S1);
        assertEquals(f.a.guid(), nodeInfo(r).nodeGuid(), "the node at the end of the DR part answers, not S1");
        assertEquals(LID_A, Smp.drSlid(r));
        assertEquals(0, Smp.hopPointer(r));
    }

    // ---- helpers ----

    private void assertTimesOut(MadAgent agent, Recorder client, byte[] mad, int dlid) throws Exception {
        SendRequest s = f.post(agent, mad, dlid, TIMEOUT_MS, 0);
        Recorder.Completion c = client.nextCompletion(5000);
        assertNotNull(c);
        assertEquals(s, c.send());
        assertEquals(SendStatus.RESPONSE_TIMEOUT, c.status(), LineFabric.describe(mad));
        assertNull(client.nextReceived(0), "no response to " + LineFabric.describe(mad));
    }

    private static final Counter[] DATA = {Counter.XMIT_DATA, Counter.RCV_DATA, Counter.XMIT_PKTS, Counter.RCV_PKTS};

    private Map<Port, long[]> counters() {
        Map<Port, long[]> all = new HashMap<>();
        for (Node n : f.fabric.nodes()) {
            for (Port p : n.ports()) {
                long[] v = new long[DATA.length];
                for (int i = 0; i < DATA.length; i++) {
                    v[i] = p.counter(DATA[i]);
                }
                all.put(p, v);
            }
        }
        return all;
    }

    /** The ports on the path sent and received one 288-octet packet each (72 words); all others nothing. */
    private void assertCrossed(Map<Port, long[]> before, List<Port> path) {
        Map<Port, long[]> after = counters();
        for (Map.Entry<Port, long[]> e : before.entrySet()) {
            Port p = e.getKey();
            long[] b = e.getValue();
            long[] a = after.get(p);
            long[] expected = path.contains(p) ? new long[] {72, 72, 1, 1} : new long[4];
            long[] delta = new long[4];
            for (int i = 0; i < 4; i++) {
                delta[i] = a[i] - b[i];
            }
            assertArrayEquals(expected, delta, p + ": PortXmitData, PortRcvData, PortXmitPkts, PortRcvPkts");
        }
    }
}
