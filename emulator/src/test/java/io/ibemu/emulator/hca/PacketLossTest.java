package io.ibemu.emulator.hca;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.fault.Faults;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * on=packet rules on the model's transport, through the real rule table: lost, duplicated,
 * reordered and corrupt packets meet the responder's PSN checks and the requester's retries
 * (IBA 9.7.5). Outcomes and counters only; the local ACK timeout is the model's timer.
 */
class PacketLossTest {
    private static final int SIGNALED = WrOpcode.FLAG_SIGNALED;
    /** Path MTU 4096 (Endpoint.connect): a 16 KiB message is four packets. */
    private static final int FOUR_PACKETS = 4 * 4096;

    private TestFabric f;
    private Endpoint ea;
    private Endpoint eb;
    private final Faults faults = new Faults();

    @BeforeEach
    void setUp() throws Exception {
        f = new TestFabric();
        faults.attach(f.fabric);
        faults.attach(f.a);
        faults.attach(f.b);
        ea = new Endpoint(f.a, 100);
        eb = new Endpoint(f.b, 200);
    }

    @AfterEach
    void tearDown() {
        f.close();
    }

    private QueuePair[] rcPair(int retry) throws Exception {
        QueuePair qa = ea.qp(QpType.RC);
        QueuePair qb = eb.qp(QpType.RC);
        ea.connect(qa, qb, TestFabric.LID_B, 1, retry, 2);
        eb.connect(qb, qa, TestFabric.LID_A, 1, retry, 2);
        return new QueuePair[] {qa, qb};
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** Posts one SEND of {@code data} from A to B with a receive waiting; returns B's receive buffer. */
    private MemoryRegion send(QueuePair[] qp, byte[] data) throws Exception {
        MemoryRegion src = ea.buffer(data.length);
        MemoryRegion dst = eb.buffer(data.length);
        ea.memory.put(src.iova(), data);
        f.b.postRecv(qp[1], List.of(new ReceiveWorkRequest(7, List.of(Endpoint.sge(dst))),
                new ReceiveWorkRequest(8, List.of(Endpoint.sge(dst)))));
        f.a.postSend(qp[0], List.of(SendWorkRequest.send(1, SIGNALED, List.of(Endpoint.sge(src)))));
        return dst;
    }

    private long hits(int rule) {
        String line = faults.list().stream().filter(l -> l.startsWith(rule + " ")).findFirst().orElseThrow();
        return Long.parseLong(line.split(" ")[1].substring("hits=".length()));
    }

    private static long count(Port p, Port.Counter c) {
        return p.counter(c);
    }

    @Test
    void aLostSendIsRetransmittedAfterTheTimeoutAndDeliveredOnce() throws Exception {
        QueuePair[] qp = rcPair(3);
        int rule = faults.add("on=packet drop nth=1");
        Port a = f.nodeA.port(1);
        long xmit = count(a, Port.Counter.XMIT_PKTS);
        byte[] data = random(100, 1);
        MemoryRegion dst = send(qp, data);

        assertEquals(WcStatus.SUCCESS, ea.one().status());
        WorkCompletion got = eb.one();
        assertEquals(7, got.wrId());
        assertEquals(100, got.byteLen());
        assertArrayEquals(data, eb.memory.get(dst.iova(), 100));
        assertEquals(List.of(), eb.poll(), "delivered once");
        assertEquals(1, hits(rule));
        assertEquals(2, count(a, Port.Counter.XMIT_PKTS) - xmit, "sent, lost, sent again");
    }

    @Test
    void aLostMiddlePacketIsNakedAndResentFromItsPsn() throws Exception {
        QueuePair[] qp = rcPair(3);
        faults.add("on=packet drop node=A nth=3");
        Port a = f.nodeA.port(1);
        Port b = f.nodeB.port(1);
        long xmit = count(a, Port.Counter.XMIT_PKTS);
        long answers = count(b, Port.Counter.XMIT_PKTS);
        byte[] data = random(FOUR_PACKETS, 2);
        MemoryRegion dst = send(qp, data);

        assertEquals(WcStatus.SUCCESS, ea.one().status());
        assertEquals(FOUR_PACKETS, eb.one().byteLen());
        assertArrayEquals(data, eb.memory.get(dst.iova(), FOUR_PACKETS));
        assertEquals(List.of(), eb.poll());
        assertEquals(4 + 2, count(a, Port.Counter.XMIT_PKTS) - xmit, "packets 3 and 4 sent again, not 1 and 2");
        assertEquals(2, count(b, Port.Counter.XMIT_PKTS) - answers, "a NAK sequence error, then the ACK");
        assertEquals(4, qp[0].sendPsn - 100, "the next message starts after the four PSNs");
    }

    @Test
    void everyPacketLostEndsInRetryExceededAndFlushesTheRest() throws Exception {
        QueuePair[] qp = rcPair(3);
        int rule = faults.add("on=packet drop qpn=" + qp[0].qpNum());
        MemoryRegion src = ea.buffer(64);
        f.a.postSend(qp[0], List.of(SendWorkRequest.send(1, SIGNALED, List.of(Endpoint.sge(src))),
                SendWorkRequest.send(2, SIGNALED, List.of(Endpoint.sge(src)))));

        WorkCompletion first = ea.one();
        assertEquals(WcStatus.RETRY_EXC_ERR, first.status());
        assertEquals(1, first.wrId());
        WorkCompletion second = ea.one();
        assertEquals(WcStatus.WR_FLUSH_ERR, second.status());
        assertEquals(QpState.ERR, qp[0].state());
        assertEquals(1 + 3, hits(rule), "the first try and retry_cnt retries, each lost");
    }

    @Test
    void aDuplicatedSendIsAcknowledgedButNotDeliveredTwice() throws Exception {
        QueuePair[] qp = rcPair(3);
        int rule = faults.add("on=packet dup opcode=SEND nth=1");
        byte[] data = random(200, 3);
        send(qp, data);
        assertEquals(WcStatus.SUCCESS, ea.one().status());
        assertEquals(7, eb.one().wrId());
        assertEquals(List.of(), eb.poll(), "the second receive is still posted");
        assertEquals(1, hits(rule));
    }

    @Test
    void aReorderedPacketIsNakedAndTheMessageArrivesWhole() throws Exception {
        QueuePair[] qp = rcPair(3);
        faults.add("on=packet reorder node=A nth=2");
        byte[] data = random(FOUR_PACKETS, 4);
        MemoryRegion dst = send(qp, data);
        assertEquals(WcStatus.SUCCESS, ea.one().status());
        assertEquals(FOUR_PACKETS, eb.one().byteLen());
        assertArrayEquals(data, eb.memory.get(dst.iova(), FOUR_PACKETS));
        assertEquals(List.of(), eb.poll());
    }

    @Test
    void aCorruptPacketOnTheInterSwitchCableIsCountedWhereItArrivesAndResent() throws Exception {
        QueuePair[] qp = rcPair(3);
        int rule = faults.add("on=packet corrupt node=S1 port=3 nth=1");
        Port s2 = f.s2.port(3);
        Port b = f.nodeB.port(1);
        long errors = count(s2, Port.Counter.RCV_ERRORS);
        long atB = count(b, Port.Counter.RCV_ERRORS);
        send(qp, random(64, 5));
        assertEquals(WcStatus.SUCCESS, ea.one().status());
        assertEquals(7, eb.one().wrId());
        assertEquals(1, count(s2, Port.Counter.RCV_ERRORS) - errors, "PortRcvErrors where the bad VCRC arrives");
        assertEquals(0, count(b, Port.Counter.RCV_ERRORS) - atB);
        assertEquals(1, hits(rule));
        assertTrue(faults.list().get(0).contains("matched=2"), "the SEND and its resend left by S1[3] (the ACK "
                + "crosses that cable from S2[3]): " + faults.list());
    }

    @Test
    void aLostReadResponseIsReadAgainAndAGapResendsFromTheMissingPacket() throws Exception {
        QueuePair[] qp = rcPair(3);
        MemoryRegion local = ea.buffer(FOUR_PACKETS);
        MemoryRegion remote = eb.buffer(FOUR_PACKETS);
        byte[] theirs = random(FOUR_PACKETS, 6);
        eb.memory.put(remote.iova(), theirs);
        // the third READ response packet leaves B's port: a gap at the requester
        int rule = faults.add("on=packet drop node=B opcode=RDMA_READ nth=3");
        f.a.postSend(qp[0], List.of(SendWorkRequest.rdma(1, WrOpcode.RDMA_READ, SIGNALED,
                List.of(Endpoint.sge(local)), remote.iova(), remote.rkey(), 0)));
        WorkCompletion rd = ea.one();
        assertEquals(WcStatus.SUCCESS, rd.status());
        assertEquals(FOUR_PACKETS, rd.byteLen());
        assertArrayEquals(theirs, ea.memory.get(local.iova(), FOUR_PACKETS));
        assertEquals(1, hits(rule));
    }

    @Test
    void aLostAtomicAcknowledgementGetsTheKeptResultNotASecondAdd() throws Exception {
        QueuePair[] qp = rcPair(3);
        MemoryRegion local = ea.buffer(8);
        MemoryRegion remote = eb.buffer(8);
        eb.memory.put(remote.iova(), le(40));
        faults.add("on=packet drop node=B opcode=ATOMIC_FETCH_AND_ADD nth=1");
        f.a.postSend(qp[0], List.of(SendWorkRequest.atomic(1, WrOpcode.ATOMIC_FETCH_AND_ADD, SIGNALED,
                Endpoint.sge(local, 0, 8), remote.iova(), remote.rkey(), 2, 0)));
        assertEquals(WcStatus.SUCCESS, ea.one().status());
        assertEquals(40, leAt(ea.memory.get(local.iova(), 8)));
        assertEquals(42, leAt(eb.memory.get(remote.iova(), 8)), "added once");
    }

    @Test
    void aLostDatagramIsSimplyLost() throws Exception {
        QueuePair qa = ea.udQp(0x11);
        QueuePair qb = eb.udQp(0x11);
        MemoryRegion src = ea.buffer(64);
        MemoryRegion dst = eb.buffer(Responder.GRH_SPACE + 64);
        f.b.postRecv(qb, List.of(new ReceiveWorkRequest(5, List.of(Endpoint.sge(dst)))));
        AddressHandle ah = f.a.createAh(ea.pd, AhAttributes.lid(TestFabric.LID_B, 1));
        int rule = faults.add("on=packet drop nth=1");
        for (int i = 1; i <= 2; i++) {
            f.a.postSend(qa, List.of(SendWorkRequest.ud(i, SIGNALED, List.of(Endpoint.sge(src)), ah, qb.qpNum(),
                    0x11)));
            assertEquals(WcStatus.SUCCESS, ea.one().status());
        }
        WorkCompletion got = eb.one();
        assertEquals(5, got.wrId());
        assertEquals(List.of(), eb.poll(), "the first was lost, the second took the one receive");
        assertEquals(1, hits(rule));
        assertTrue(faults.list().get(0).contains("matched=4"), "the first met the rule on its first cable, the "
                + "second on each of its three: " + faults.list());
    }

    @Test
    void aReceiveRuleEndsTheReceiveWithItsStatusAndTheRequesterHearsRemoteOperationalError() throws Exception {
        QueuePair[] qp = rcPair(3);
        int rule = faults.add("on=wc side=recv qpn=" + qp[1].qpNum() + " status=LOC_PROT_ERR");
        faults.add("on=wc status=REM_ACCESS_ERR opcode=RDMA_READ"); // send side only: never a receive
        send(qp, random(64, 7));
        WorkCompletion recv = eb.one();
        assertEquals(WcStatus.LOC_PROT_ERR, recv.status());
        assertEquals(7, recv.wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, eb.one().status(), "the second receive flushed: the QP is in ERR");
        assertEquals(QpState.ERR, qp[1].state());
        assertEquals(WcStatus.REM_OP_ERR, ea.one().status());
        assertEquals(1, hits(rule));
    }

    @Test
    void ucLosesTheMessageWithAGapAndTakesTheNextWhole() throws Exception {
        QueuePair qa = ea.qp(QpType.UC);
        QueuePair qb = eb.qp(QpType.UC);
        ea.connect(qa, qb, TestFabric.LID_B, 0, 0, 0);
        eb.connect(qb, qa, TestFabric.LID_A, 0, 0, 0);
        faults.add("on=packet drop node=A nth=2");
        byte[] first = random(FOUR_PACKETS, 8);
        byte[] second = random(FOUR_PACKETS, 9);
        MemoryRegion src = ea.buffer(2 * FOUR_PACKETS);
        MemoryRegion dst = eb.buffer(FOUR_PACKETS);
        ea.memory.put(src.iova(), first);
        ea.memory.put(src.iova() + FOUR_PACKETS, second);
        f.b.postRecv(qb, List.of(new ReceiveWorkRequest(1, List.of(Endpoint.sge(dst)))));
        f.a.postSend(qa, List.of(SendWorkRequest.send(1, SIGNALED, List.of(Endpoint.sge(src, 0, FOUR_PACKETS))),
                SendWorkRequest.send(2, SIGNALED, List.of(Endpoint.sge(src, FOUR_PACKETS, FOUR_PACKETS)))));
        assertEquals(WcStatus.SUCCESS, ea.one().status(), "UC: the sender never knows");
        assertEquals(WcStatus.SUCCESS, ea.one().status());
        WorkCompletion got = eb.one();
        assertEquals(1, got.wrId());
        assertArrayEquals(second, eb.memory.get(dst.iova(), FOUR_PACKETS), "the first message lost, the second whole");
        assertEquals(List.of(), eb.poll());
    }

    @Test
    void aSeededRuleLosesTheSamePacketsInEveryRun() throws Exception {
        List<String> runs = new java.util.ArrayList<>();
        for (int run = 0; run < 2; run++) {
            try (TestFabric fabric = new TestFabric()) {
                Faults table = new Faults();
                table.attach(fabric.a);
                table.attach(fabric.b);
                Endpoint a = new Endpoint(fabric.a, 100);
                Endpoint b = new Endpoint(fabric.b, 200);
                QueuePair qa = a.qp(QpType.RC);
                QueuePair qb = b.qp(QpType.RC);
                a.connect(qa, qb, TestFabric.LID_B, 1, 7, 2);
                b.connect(qb, qa, TestFabric.LID_A, 1, 7, 2);
                table.add("on=packet drop prob=0.05 seed=42"); // on each of the three cables each way
                MemoryRegion src = a.buffer(FOUR_PACKETS);
                MemoryRegion dst = b.buffer(FOUR_PACKETS);
                StringBuilder seen = new StringBuilder();
                for (int i = 0; i < 20; i++) {
                    fabric.b.postRecv(qb, List.of(new ReceiveWorkRequest(i, List.of(Endpoint.sge(dst)))));
                    fabric.a.postSend(qa, List.of(SendWorkRequest.send(i, SIGNALED, List.of(Endpoint.sge(src)))));
                    assertEquals(WcStatus.SUCCESS, a.one().status());
                    assertEquals(i, b.one().wrId());
                    seen.append(fabric.nodeA.port(1).counter(Port.Counter.XMIT_PKTS)).append(' ');
                }
                runs.add(seen + table.list().get(0));
            }
        }
        assertEquals(runs.get(0), runs.get(1));
        assertTrue(!runs.get(0).contains(" hits=0 "), runs.get(0));
    }

    @Test
    void aPacketRuleNamingNoNodeIsRefused() {
        var e = org.junit.jupiter.api.Assertions.assertThrows(io.ibemu.emulator.fault.FaultSyntaxException.class,
                () -> faults.add("on=packet drop node=Z"));
        assertTrue(e.getMessage().contains("no node 'Z'"), e.getMessage());
        assertEquals(List.of(), faults.list(), "nothing added");
    }

    private static byte[] le(long v) {
        return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array();
    }

    private static long leAt(byte[] b) {
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }
}
