package io.ibemu.emulator.cm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ibemu.emulator.agent.SendStatus;
import io.ibemu.emulator.cm.CmFabric.Recorder;
import io.ibemu.emulator.cm.CmFabric.Seen;
import io.ibemu.emulator.hca.Access;
import io.ibemu.emulator.hca.QpAttributeMask;
import io.ibemu.emulator.hca.QpState;
import io.ibemu.emulator.hca.QpType;
import io.ibemu.emulator.mad.CmAttribute;
import io.ibemu.emulator.mad.CmRej;
import io.ibemu.emulator.mad.CmReq;
import io.ibemu.emulator.mad.Mad;
import io.ibemu.kernel.Errno;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * cm.c's state machine between two HCAs of an in-process fabric, through the real MAD layer:
 * every exchange is checked by the events each side's handler gets and by the CM MADs that left
 * the ports. Timeouts are the kernel's formulas on small exponents; a test that waits for a
 * retry or a timeout waits for an event, never for a time.
 */
class CmTest {
    private static final long SERVICE = 0x0106000000001234L;
    /** 2^20 * 4.096 us = 4 s per try, as rdma_cm asks: no retry unless a MAD is lost. */
    private static final int RESPONSE_TIMEOUT = 20;
    /** 2^16 * 4.096 us = 256 ms per try, for the tests that wait for a retry. */
    private static final int RETRY_SOON = 16;

    private CmFabric f;
    private final Recorder active = new Recorder();
    private final Recorder passive = new Recorder();

    @BeforeEach
    void setUp() throws Exception {
        f = new CmFabric();
    }

    @AfterEach
    void tearDown() {
        f.close();
    }

    private CmId listener() throws Errno {
        CmId l = f.cm.createId(f.b, passive);
        l.listen(SERVICE, 0);
        return l;
    }

    private static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed + i);
        }
        return b;
    }

    private CmId connect(int retries) throws Exception {
        return connect(retries, RESPONSE_TIMEOUT);
    }

    private CmId connect(int retries, int responseTimeout) throws Exception {
        CmId id = f.cm.createId(f.a, active);
        id.sendReq(CmFabric.request(f.portA, f.portB, SERVICE, 0x111, 0x1000, bytes(10, 1), responseTimeout,
                retries));
        return id;
    }

    /** The passive id of the REQ that came, once it sent a plain REP (no private data, no RDMA reads). */
    private CmId reply() throws Exception {
        CmId b = passive.next(CmEvent.ReqReceived.class).id();
        b.sendRep(new CmReplyParam(0x222, 0x2000, null, 0, 0, 0, false, 7, false));
        return b;
    }

    /** The first CM MAD carrying {@code attributeId} is lost on the wire; every other one arrives. */
    private void loseFirst(int attributeId) {
        boolean[] lost = {false};
        f.lose((port, mad) -> {
            if (Mad.attributeId(mad) == attributeId && !lost[0]) {
                lost[0] = true;
                return true;
            }
            return false;
        });
    }

    /** REQ, REP, RTU: both ends ESTABLISHED; returns {active id, passive id}. */
    private CmId[] establish() throws Exception {
        CmId l = listener();
        CmId a = connect(15);
        CmId b = passive.next(CmEvent.ReqReceived.class).id();
        b.sendRep(new CmReplyParam(0x222, 0x2000, bytes(4, 9), 3, 4, 0, true, 7, false));
        active.next(CmEvent.RepReceived.class);
        a.sendRtu(null);
        passive.next(CmEvent.RtuReceived.class);
        assertEquals(CmState.LISTEN, l.state());
        return new CmId[] {a, b};
    }

    @Test
    void reqRepRtuEstablishBothEndsWithTheKernelsEventParameters() throws Exception {
        CmId l = listener();
        CmId a = connect(15);
        assertEquals(CmState.REQ_SENT, a.state());
        Seen req = passive.next(CmEvent.ReqReceived.class);
        CmEvent.ReqReceived r = (CmEvent.ReqReceived) req.event();
        CmId b = req.id();
        assertFalse(b == l, "REQ_RECEIVED comes with a new id");
        assertSame(l, r.listenId());
        assertEquals(CmState.REQ_RCVD, b.state());
        assertEquals(a.localId(), b.remoteId());
        assertEquals(SERVICE, b.serviceId());
        assertEquals(0x111, r.remoteQpn());
        assertEquals(0x1000, r.startingPsn());
        assertEquals(QpType.RC, r.qpType());
        assertEquals(2, r.responderResources(), "the peer's initiator depth");
        assertEquals(4, r.initiatorDepth(), "the peer's responder resources");
        assertEquals(1, r.port());
        assertEquals(0xffff, r.bthPkey());
        assertEquals(f.portA.node().guid(), r.remoteCaGuid());
        assertEquals(f.portA.lid(), r.primaryPath().dlid(), "the path back to the requester");
        assertEquals(f.portB.lid(), r.primaryPath().slid());
        assertEquals(f.portA.guid(), r.primaryPath().dgidInterface());
        assertEquals(CmReq.PRIVATE_DATA_SIZE, r.privateData().length, "private data at its full fixed length");
        assertArrayEquals(bytes(10, 1), Arrays.copyOf(r.privateData(), 10));
        assertEquals(0x1000, b.initQpAttr(QpState.RTS).attributes().sqPsn(), "RTS allowed before the REP");
        assertEquals(Errno.EINVAL, assertThrows(Errno.class, () -> a.initQpAttr(QpState.RTS)).code(),
                "but not on the requester before the REP");

        b.sendRep(new CmReplyParam(0x222, 0x2000, bytes(4, 9), 3, 4, 0, true, 7, false));
        assertEquals(CmState.REP_SENT, b.state());
        CmEvent.RepReceived rep = (CmEvent.RepReceived) active.next(CmEvent.RepReceived.class).event();
        assertEquals(0x222, rep.remoteQpn());
        assertEquals(0x2000, rep.startingPsn());
        assertEquals(4, rep.responderResources());
        assertEquals(3, rep.initiatorDepth());
        assertEquals(CmState.REP_RCVD, a.state());
        assertEquals(b.localId(), a.remoteId());

        a.sendRtu(bytes(3, 5));
        assertEquals(CmState.ESTABLISHED, a.state());
        CmEvent.RtuReceived rtu = (CmEvent.RtuReceived) passive.next(CmEvent.RtuReceived.class).event();
        assertEquals(224, rtu.privateData().length);
        assertEquals(CmState.ESTABLISHED, b.state());
        assertEquals(List.of("A>REQ", "B>REP", "A>RTU"), f.exchanges());
        List<byte[]> mads = f.wireMads();
        long tid = Mad.transactionId(mads.get(0));
        assertEquals(tid, Mad.transactionId(mads.get(f.wire().indexOf("B>REP"))), "the REP answers in the REQ's TID");
        assertEquals(tid, Mad.transactionId(mads.get(f.wire().indexOf("A>RTU"))));
    }

    @Test
    void initQpAttrGivesEachSideThePeersQpnAndPsns() throws Exception {
        CmId[] ids = establish();
        CmId a = ids[0];
        CmId b = ids[1];
        QpAttributeChange init = a.initQpAttr(QpState.INIT);
        assertEquals(QpAttributeMask.STATE | QpAttributeMask.ACCESS_FLAGS | QpAttributeMask.PKEY_INDEX
                | QpAttributeMask.PORT, init.mask());
        assertEquals(Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC,
                init.attributes().qpAccessFlags());
        assertEquals(1, init.attributes().portNum());

        QpAttributeChange rtrA = a.initQpAttr(QpState.RTR);
        assertEquals(0x222, rtrA.attributes().destQpNum());
        assertEquals(0x1000, rtrA.attributes().rqPsn(), "the REQ's starting PSN is the requester's receive PSN");
        assertEquals(f.portB.lid(), rtrA.attributes().ah().dlid());
        assertEquals(4, rtrA.attributes().pathMtu());
        assertEquals(4, rtrA.attributes().maxDestRdAtomic(), "responder resources as the REP granted them");
        assertTrue((rtrA.mask() & QpAttributeMask.MAX_DEST_RD_ATOMIC) != 0);
        QpAttributeChange rtsA = a.initQpAttr(QpState.RTS);
        assertEquals(0x2000, rtsA.attributes().sqPsn());
        assertEquals(7, rtsA.attributes().retryCnt());
        assertEquals(7, rtsA.attributes().rnrRetry(), "the REP's RNR retry count");

        QpAttributeChange rtrB = b.initQpAttr(QpState.RTR);
        assertEquals(0x111, rtrB.attributes().destQpNum());
        assertEquals(0x2000, rtrB.attributes().rqPsn());
        assertEquals(f.portA.lid(), rtrB.attributes().ah().dlid());
        QpAttributeChange rtsB = b.initQpAttr(QpState.RTS);
        assertEquals(0x1000, rtsB.attributes().sqPsn());
        assertEquals(6, rtsB.attributes().rnrRetry(), "the REQ's RNR retry count");
        assertEquals(Errno.EINVAL, assertThrows(Errno.class, () -> b.initQpAttr(QpState.SQD)).code());
        CmId idle = f.cm.createId(f.a, active);
        assertEquals(Errno.EINVAL, assertThrows(Errno.class, () -> idle.initQpAttr(QpState.INIT)).code());
    }

    @Test
    void aReqToAServiceNobodyListensOnIsRejectedWithInvalidServiceId() throws Exception {
        CmId a = connect(15);
        CmEvent.RejReceived rej = (CmEvent.RejReceived) active.next(CmEvent.RejReceived.class).event();
        assertEquals(CmRejectReason.INVALID_SERVICE_ID.code(), rej.reason());
        assertEquals(8, rej.reason());
        assertEquals(CmState.IDLE, a.state());
        assertEquals(List.of("A>REQ", "B>REJ"), f.exchanges());
        CmRej wire = CmRej.decode(f.wireMads().get(f.wire().indexOf("B>REJ")));
        assertEquals(CmAttribute.MESSAGE_REQ, wire.messageRejected());
        assertEquals(a.localId(), wire.remoteCommId());
        assertEquals(0, wire.localCommId());
        assertEquals(1, f.cm.ids().size(), "no id was left for the rejected REQ");
    }

    @Test
    void aLostReqIsSentAgainAndTheConnectionStillForms() throws Exception {
        listener();
        loseFirst(CmAttribute.REQ);
        CmId a = connect(15, RETRY_SOON);
        CmId b = reply();
        active.next(CmEvent.RepReceived.class);
        a.sendRtu(null);
        passive.next(CmEvent.RtuReceived.class);
        List<String> wire = f.wire();
        assertEquals(List.of("A>REQ", "A>REQ"), wire.subList(0, 2), "the REQ again after the response timeout");
        List<byte[]> mads = f.wireMads();
        assertEquals(Mad.transactionId(mads.get(0)), Mad.transactionId(mads.get(1)), "a retry keeps its TID");
        assertTrue(passive.events.isEmpty(), "one REQ_RECEIVED however many REQs arrived: " + passive.events);
    }

    @Test
    void aReqNobodyHearsEndsInReqErrorAfterMaxCmRetries() throws Exception {
        listener();
        f.lose((port, mad) -> Mad.attributeId(mad) == CmAttribute.REQ);
        CmId a = connect(2, 14);
        CmEvent.ReqError e = (CmEvent.ReqError) active.next(CmEvent.ReqError.class).event();
        assertEquals(SendStatus.RESPONSE_TIMEOUT, e.sendStatus());
        assertEquals(CmState.IDLE, a.state());
        assertEquals(List.of("A>REQ", "A>REQ", "A>REQ"), f.wire(), "the REQ and max_cm_retries = 2 retries");
    }

    @Test
    void aLostRtuIsAnsweredByTheRepeatedRep() throws Exception {
        listener();
        loseFirst(CmAttribute.RTU);
        CmId a = connect(15, RETRY_SOON);
        CmId b = reply();
        active.next(CmEvent.RepReceived.class);
        a.sendRtu(bytes(5, 3));
        CmEvent.RtuReceived rtu = (CmEvent.RtuReceived) passive.next(CmEvent.RtuReceived.class).event();
        assertArrayEquals(bytes(5, 3), Arrays.copyOf(rtu.privateData(), 5), "the repeated RTU carries the same data");
        assertEquals(List.of("A>REQ", "B>REP", "A>RTU"), f.exchanges());
        assertTrue(f.wire().stream().filter("B>REP"::equals).count() >= 2, "the REP again: " + f.wire());
        assertTrue(f.wire().stream().filter("A>RTU"::equals).count() >= 2, "the RTU again: " + f.wire());
        assertTrue(active.events.isEmpty(), "the duplicate REP is no event: " + active.events);
    }

    @Test
    void anMraMakesTheRequesterWaitAndReportsTheServiceTimeout() throws Exception {
        listener();
        CmId a = connect(1);
        CmId b = passive.next(CmEvent.ReqReceived.class).id();
        b.sendMra(21, bytes(2, 7));
        assertEquals(CmState.MRA_REQ_SENT, b.state());
        CmEvent.MraReceived mra = (CmEvent.MraReceived) active.next(CmEvent.MraReceived.class).event();
        assertEquals(21, mra.serviceTimeout());
        assertEquals(CmState.MRA_REQ_RCVD, a.state());
        b.sendRep(new CmReplyParam(0x222, 0x2000, null, 0, 0, 0, false, 7, false));
        active.next(CmEvent.RepReceived.class);
        assertEquals(CmState.REP_RCVD, a.state());
    }

    @Test
    void theConsumerRejectsAndTheRequesterHearsItsReasonAndData() throws Exception {
        listener();
        CmId a = connect(15);
        CmId b = passive.next(CmEvent.ReqReceived.class).id();
        b.sendRej(CmRejectReason.CONSUMER_DEFINED, null, bytes(6, 2));
        assertEquals(CmState.IDLE, b.state());
        CmEvent.RejReceived rej = (CmEvent.RejReceived) active.next(CmEvent.RejReceived.class).event();
        assertEquals(28, rej.reason());
        assertArrayEquals(bytes(6, 2), Arrays.copyOf(rej.privateData(), 6));
        assertEquals(CmRej.PRIVATE_DATA_SIZE, rej.privateData().length);
        assertEquals(CmState.IDLE, a.state());
    }

    @Test
    void aRequesterDestroyedMidHandshakeSendsRejTimeoutWithItsCaGuid() throws Exception {
        listener();
        CmId a = connect(15);
        CmId b = passive.next(CmEvent.ReqReceived.class).id();
        a.destroy();
        CmEvent.RejReceived rej = (CmEvent.RejReceived) passive.next(CmEvent.RejReceived.class).event();
        assertEquals(CmRejectReason.TIMEOUT.code(), rej.reason());
        long guid = 0;
        for (byte x : rej.ari()) {
            guid = (guid << 8) | (x & 0xff);
        }
        assertEquals(8, rej.ari().length);
        assertEquals(f.portA.node().guid(), guid, "the ARI names the rejecting CA");
        assertEquals(CmState.IDLE, b.state());
        assertFalse(f.cm.ids().contains(a));
    }

    @Test
    void aResponderDestroyedAfterItsRepSendsRejAndEntersNoEventAfterwards() throws Exception {
        listener();
        CmId a = connect(15);
        CmId b = reply();
        active.next(CmEvent.RepReceived.class);
        b.destroy();
        CmEvent.RejReceived rej = (CmEvent.RejReceived) active.next(CmEvent.RejReceived.class).event();
        assertEquals(CmRejectReason.CONSUMER_DEFINED.code(), rej.reason());
        active.next(CmEvent.TimewaitExit.class); // a REJ after a REP was received: timewait

        assertEquals(CmState.IDLE, a.state());
        assertNull(passive.events.poll(), "nothing reaches a destroyed id's handler");
    }

    @Test
    void dreqAndDrepEndTheConnectionThroughTimewait() throws Exception {
        CmId[] ids = establish();
        CmId a = ids[0];
        CmId b = ids[1];
        a.sendDreq(bytes(4, 4));
        assertEquals(CmState.DREQ_SENT, a.state());
        CmEvent.DreqReceived dreq = (CmEvent.DreqReceived) passive.next(CmEvent.DreqReceived.class).event();
        assertEquals(220, dreq.privateData().length);
        assertEquals(CmState.DREQ_RCVD, b.state());
        b.sendDrep(bytes(2, 8));
        CmEvent.DrepReceived drep = (CmEvent.DrepReceived) active.next(CmEvent.DrepReceived.class).event();
        assertArrayEquals(bytes(2, 8), Arrays.copyOf(drep.privateData(), 2));
        active.next(CmEvent.TimewaitExit.class);
        passive.next(CmEvent.TimewaitExit.class);
        assertEquals(CmState.IDLE, a.state());
        assertEquals(CmState.IDLE, b.state());
        assertEquals(List.of("A>REQ", "B>REP", "A>RTU", "A>DREQ", "B>DREP"), f.exchanges());
    }

    @Test
    void dreqBothWaysAtOnceEndsBothSidesInTimewait() throws Exception {
        CmId[] ids = establish();
        CmHandler drep = (id, e) -> {
            if (e instanceof CmEvent.DreqReceived) {
                try {
                    id.sendDrep(null);
                } catch (Errno x) {
                    throw new AssertionError("DREP in " + id.state(), x);
                }
            }
        };
        active.then = drep;
        passive.then = drep;
        // both DREQs leave before the CM thread handles either (it waits for the CM's lock)
        synchronized (f.cm.lock()) {
            ids[0].sendDreq(null);
            ids[1].sendDreq(null);
        }
        active.next(CmEvent.DreqReceived.class);
        passive.next(CmEvent.DreqReceived.class);
        active.next(CmEvent.TimewaitExit.class);
        passive.next(CmEvent.TimewaitExit.class);
        assertEquals(CmState.IDLE, ids[0].state());
        assertEquals(CmState.IDLE, ids[1].state());
        assertTrue(f.wire().containsAll(List.of("A>DREQ", "B>DREQ", "A>DREP", "B>DREP")), f.wire().toString());
    }

    @Test
    void destroyingAnEstablishedIdSendsDreqAndThePeerGetsItsDisconnect() throws Exception {
        CmId[] ids = establish();
        passive.then = (id, e) -> {
            if (e instanceof CmEvent.DreqReceived) {
                try {
                    id.sendDrep(null);
                } catch (Errno x) {
                    throw new AssertionError(x);
                }
            }
        };
        ids[0].destroy();
        passive.next(CmEvent.DreqReceived.class);
        passive.next(CmEvent.TimewaitExit.class);
        assertEquals(List.of("A>REQ", "B>REP", "A>RTU", "A>DREQ", "B>DREP"), f.exchanges());
        assertFalse(f.cm.ids().contains(ids[0]));
        assertTrue(f.cm.ids().contains(ids[1]));
        ids[1].destroy();
        assertEquals(1, f.cm.ids().size(), "only the listener is left");
    }

    @Test
    void aDreqForAConnectionAlreadyGoneStillGetsItsDrep() throws Exception {
        CmId[] ids = establish();
        f.lose((port, mad) -> port == f.portB);
        ids[1].destroy(); // its DREQ is lost, and it is gone
        f.lose((port, mad) -> false);
        ids[0].sendDreq(null);
        active.next(CmEvent.DrepReceived.class);
        assertEquals(List.of("A>REQ", "B>REP", "A>RTU", "B>DREQ", "A>DREQ", "B>DREP"), f.exchanges(),
                "cm_issue_drep answers for the id that is gone");
        active.next(CmEvent.TimewaitExit.class);
    }

    @Test
    void aReqFromAQpThatIsStillConnectedIsStaleTheOldConnectionGetsADreq() throws Exception {
        CmId[] ids = establish();
        // the same QP number from the same CA again: the first connection must be stale
        CmId again = f.cm.createId(f.a, active);
        again.sendReq(CmFabric.request(f.portA, f.portB, SERVICE, 0x111, 0x3000, null, RESPONSE_TIMEOUT, 15));
        Seen rej = active.next(CmEvent.RejReceived.class);
        assertSame(again, rej.id());
        assertEquals(CmRejectReason.STALE_CONN.code(), ((CmEvent.RejReceived) rej.event()).reason());
        Seen dreq = active.next(CmEvent.DreqReceived.class);
        assertSame(ids[0], dreq.id(), "B disconnects the stale connection");
        assertEquals(CmState.DREQ_SENT, ids[1].state());
        assertEquals(CmState.DREQ_RCVD, ids[0].state());
        active.next(CmEvent.TimewaitExit.class); // the rejected id: a stale REJ means timewait
        assertTrue(passive.events.isEmpty(), "no REQ_RECEIVED for the stale REQ: " + passive.events);
    }

    @Test
    void ctlDropOnTheSendingPortLosesCmMadsAndThePmaCountsWhatLeaves() throws Exception {
        listener();
        long before = f.portA.counter(io.ibemu.emulator.fabric.Port.Counter.XMIT_PKTS);
        io.ibemu.emulator.fabric.Port sw = f.portA.peer().orElseThrow();
        long lostBefore = sw.counter(io.ibemu.emulator.fabric.Port.Counter.RCV_ERRORS);
        // ctl drop a/1 1.0 attr=0x0010 class=0x07: every REQ leaving A is lost
        f.portA.setDropRate(1.0, CmAttribute.REQ, io.ibemu.emulator.mad.MgmtClass.COMM_MGMT);
        CmId a = connect(1, 14);
        assertEquals(SendStatus.RESPONSE_TIMEOUT,
                ((CmEvent.ReqError) active.next(CmEvent.ReqError.class).event()).sendStatus());
        assertEquals(2, sw.counter(io.ibemu.emulator.fabric.Port.Counter.RCV_ERRORS) - lostBefore,
                "the REQ and its one retry, each lost on the cable (the switch port counts PortRcvErrors)");
        assertTrue(passive.events.isEmpty());
        f.portA.setDropRate(0, -1);
        assertEquals(CmState.IDLE, a.state());
        a.sendReq(CmFabric.request(f.portA, f.portB, SERVICE, 0x111, 0x1000, null, RESPONSE_TIMEOUT, 15));
        passive.next(CmEvent.ReqReceived.class);
        assertTrue(f.portA.counter(io.ibemu.emulator.fabric.Port.Counter.XMIT_PKTS) > before,
                "the REQ that went counted in PortXmitPkts");
    }

    @Test
    void aConnectionToTheSamePortLoopsBackThroughItsOwnCm() throws Exception {
        CmId l = f.cm.createId(f.a, passive);
        l.listen(SERVICE, 0);
        CmId a = f.cm.createId(f.a, active);
        a.sendReq(CmFabric.request(f.portA, f.portA, SERVICE, 0x111, 0x1000, null, RESPONSE_TIMEOUT, 15));
        CmId b = reply();
        active.next(CmEvent.RepReceived.class);
        a.sendRtu(null);
        passive.next(CmEvent.RtuReceived.class);
        assertEquals(CmState.ESTABLISHED, a.state());
        assertEquals(CmState.ESTABLISHED, b.state());
        assertEquals(0x222, a.initQpAttr(QpState.RTR).attributes().destQpNum());
        assertEquals(f.portA.lid(), a.initQpAttr(QpState.RTR).attributes().ah().dlid());
    }

    @Test
    void aCableCutDuringTheConnectEndsInReqError() throws Exception {
        listener();
        f.portB.cut();
        CmId a = connect(2, 14);
        CmEvent.ReqError e = (CmEvent.ReqError) active.next(CmEvent.ReqError.class).event();
        assertEquals(SendStatus.RESPONSE_TIMEOUT, e.sendStatus());
        assertEquals(CmState.IDLE, a.state());
        assertTrue(passive.events.isEmpty(), "nothing reached B: " + passive.events);
    }

    @Test
    void aRequesterThatNeedsTimeSendsAnMraForTheRep() throws Exception {
        listener();
        CmId a = connect(15);
        CmId b = reply();
        active.next(CmEvent.RepReceived.class);
        a.sendMra(21, null);
        assertEquals(CmState.MRA_REP_SENT, a.state());
        assertEquals(21, ((CmEvent.MraReceived) passive.next(CmEvent.MraReceived.class).event()).serviceTimeout());
        assertEquals(CmState.MRA_REP_RCVD, b.state());
        a.sendRtu(null);
        passive.next(CmEvent.RtuReceived.class);
        assertEquals(CmState.ESTABLISHED, b.state());
    }

    @Test
    void aRepeatedReqWhileTheMraStandsIsAnsweredWithTheMraAgain() throws Exception {
        listener();
        loseFirst(CmAttribute.MRA);
        CmId a = connect(15, RETRY_SOON);
        CmId b = passive.next(CmEvent.ReqReceived.class).id();
        b.sendMra(21, null); // lost: A's REQ goes again, and B's CM answers it with the MRA
        active.next(CmEvent.MraReceived.class);
        assertEquals(CmState.MRA_REQ_RCVD, a.state());
        assertTrue(f.wire().stream().filter("B>MRA"::equals).count() >= 2, f.wire().toString());
        assertTrue(passive.events.isEmpty(), "the repeated REQ is no event: " + passive.events);
    }

    @Test
    void aRepNeverAnsweredEndsInRepErrorAndAnUnansweredDreqInDreqError() throws Exception {
        listener();
        f.lose((port, mad) -> Mad.attributeId(mad) == CmAttribute.RTU);
        CmId a = connect(2, RETRY_SOON);
        CmId b = reply();
        active.next(CmEvent.RepReceived.class);
        a.sendRtu(null);
        CmEvent.RepError e = (CmEvent.RepError) passive.next(CmEvent.RepError.class).event();
        assertEquals(SendStatus.RESPONSE_TIMEOUT, e.sendStatus());
        assertEquals(CmState.IDLE, b.state());
        assertEquals(3, f.wire().stream().filter("B>REP"::equals).count(), "the REP and its 2 retries");

        f.lose((port, mad) -> Mad.attributeId(mad) == CmAttribute.DREQ);
        a.sendDreq(null);
        active.next(CmEvent.DreqError.class);
        active.next(CmEvent.TimewaitExit.class);
        assertEquals(CmState.IDLE, a.state());
        assertEquals(3, f.wire().stream().filter("A>DREQ"::equals).count(), "the DREQ and its 2 retries");
    }

    @Test
    void theResponderMayEstablishOnItsFirstPacketBeforeTheRtu() throws Exception {
        listener();
        f.lose((port, mad) -> Mad.attributeId(mad) == CmAttribute.RTU);
        CmId a = connect(15);
        CmId b = reply();
        active.next(CmEvent.RepReceived.class);
        a.sendRtu(null);
        b.establish(); // ib_cm_notify(IB_EVENT_COMM_EST): the QP saw the requester's first packet
        passive.next(CmEvent.UserEstablished.class);
        assertEquals(CmState.ESTABLISHED, b.state());
        assertEquals(Errno.EISCONN, assertThrows(Errno.class, b::establish).code(), "established already");
        assertTrue(passive.events.isEmpty());
        CmId idle = f.cm.createId(f.a, active);
        assertEquals(Errno.EINVAL, assertThrows(Errno.class, idle::establish).code());
    }

    @Test
    void valuesWiderThanTheirFieldsKeepTheirLowBitsAsIbaSetDoes() throws Exception {
        CmId a = f.cm.createId(f.a, active);
        a.sendReq(new CmRequestParam(CmFabric.path(f.portA, f.portB), null, SERVICE, 0x111, QpType.RC, 0x1000,
                null, 0x1ff, 0x104, 20, false, 20, 9, 15, 0x12, false));
        active.next(CmEvent.RejReceived.class); // nobody listens
        CmReq req = CmReq.decode(f.wireMads().get(0));
        assertEquals(0xff, req.responderResources());
        assertEquals(0x04, req.initiatorDepth());
        assertEquals(1, req.retryCount(), "9 in 3 bits");
        assertEquals(7, req.rnrRetryCount());
        assertEquals(2, req.maxCmRetries(), "0x12 in 4 bits");
    }

    @Test
    void eachPortCountsItsCmMessagesRetriesAndDuplicatesAsCmCDoes() throws Exception {
        listener();
        loseFirst(CmAttribute.REQ);
        // the REQ soon sent again, the REP not (its wait is the REQ's local CM response timeout)
        CmId a = f.cm.createId(f.a, active);
        a.sendReq(new CmRequestParam(CmFabric.path(f.portA, f.portB), null, SERVICE, 0x111, QpType.RC, 0x1000,
                null, 4, 2, RETRY_SOON, true, RESPONSE_TIMEOUT, 7, 6, 15, false));
        CmId b = reply();
        active.next(CmEvent.RepReceived.class);
        a.sendRtu(null);
        passive.next(CmEvent.RtuReceived.class);
        long reqs = f.wire().stream().filter("A>REQ"::equals).count();
        assertTrue(reqs >= 2);
        // the REQ's send completed (and was counted) when the REP cancelled it, before REP_RECEIVED
        CmCounters.Group tx = CmCounters.Group.TX_MSGS;
        assertEquals(reqs, f.cm.counter(f.portA, tx, "req"), "every REQ sent, retries included");
        assertEquals(reqs - 1, f.cm.counter(f.portA, CmCounters.Group.TX_RETRIES, "req"));
        assertEquals(1, f.cm.counter(f.portA, tx, "rtu"));
        assertEquals(1, f.cm.counter(f.portA, CmCounters.Group.RX_MSGS, "rep"));
        assertEquals(reqs - 1, f.cm.counter(f.portB, CmCounters.Group.RX_MSGS, "req"), "the lost one never came");
        assertEquals(reqs - 2, f.cm.counter(f.portB, CmCounters.Group.RX_DUPLICATES, "req"));
        assertEquals(1, f.cm.counter(f.portB, CmCounters.Group.RX_MSGS, "rtu"));
        assertEquals(0, f.cm.counter(f.portB, tx, "apr"));
        assertThrows(IllegalArgumentException.class, () -> f.cm.counter(f.portB, tx, "nosuch"));
    }

    @Test
    void listenRefusesAServiceAnotherIdCoversAndAnAssignedLookingOne() throws Exception {
        CmId l = listener();
        CmId other = f.cm.createId(f.b, passive);
        assertEquals(Errno.EBUSY, assertThrows(Errno.class, () -> other.listen(SERVICE, 0)).code());
        assertEquals(Errno.EBUSY, assertThrows(Errno.class, () -> other.listen(SERVICE & ~0xffL, 0xffffffffffffff00L))
                .code(), "a masked range covering the service");
        assertEquals(Errno.EINVAL, assertThrows(Errno.class, () -> other.listen(0x0200000000000001L, 0)).code());
        assertEquals(Errno.EINVAL, assertThrows(Errno.class, () -> l.listen(SERVICE + 1, 0)).code(), "not IDLE");
        CmId onA = f.cm.createId(f.a, active);
        onA.listen(SERVICE, 0); // another device: no conflict
        other.listen(Cm.ASSIGN_SERVICE_ID, 0);
        assertEquals(Cm.ASSIGN_SERVICE_ID, other.serviceId(), "IB_CM_ASSIGN_SERVICE_ID takes the next number");
    }

    @Test
    void insertListenSharesTheListenerOfTheSameHandlerUntilEveryShareIsDestroyed() throws Exception {
        CmId first = f.cm.insertListen(f.b, passive, SERVICE);
        assertEquals(CmState.LISTEN, first.state());
        assertSame(first, f.cm.insertListen(f.b, passive, SERVICE), "the same handler shares the listener");
        assertEquals(Errno.EINVAL, assertThrows(Errno.class, () -> f.cm.insertListen(f.b, (id, e) -> { }, SERVICE))
                .code(), "another handler cannot");
        CmId other = f.cm.createId(f.b, passive);
        assertEquals(Errno.EBUSY, assertThrows(Errno.class, () -> other.listen(SERVICE, 0)).code());
        first.destroy();
        assertEquals(CmState.LISTEN, first.state(), "one share left");
        connect(15);
        passive.next(CmEvent.ReqReceived.class);
        first.destroy();
        assertFalse(f.cm.ids().contains(first));
        other.listen(SERVICE, 0);
    }

    @Test
    void afterItsDeviceIsRemovedAnIdSendsNothingAndStillDestroys() throws Exception {
        CmId[] ids = establish();
        f.cm.removeDevice(f.a.local());
        assertEquals(Errno.EINVAL, assertThrows(Errno.class, () -> ids[0].sendDreq(null)).code(),
                "cm_alloc_msg: no agent");
        int before = f.wire().size();
        ids[0].destroy();
        assertFalse(f.cm.ids().contains(ids[0]));
        assertEquals(before, f.wire().size(), "nothing left the removed device");
        assertEquals(CmState.ESTABLISHED, ids[1].state(), "the peer hears nothing (until its own keepalive)");
    }

    @Test
    void callsInTheWrongStateOrWithTooMuchPrivateDataAreEinval() throws Exception {
        CmId idle = f.cm.createId(f.a, active);
        assertEquals(Errno.EINVAL, assertThrows(Errno.class,
                () -> idle.sendRep(new CmReplyParam(1, 1, null, 0, 0, 0, false, 0, false))).code());
        assertEquals(Errno.EINVAL, assertThrows(Errno.class, () -> idle.sendRtu(null)).code());
        assertEquals(Errno.EINVAL, assertThrows(Errno.class, () -> idle.sendDreq(null)).code());
        assertEquals(Errno.EINVAL, assertThrows(Errno.class, () -> idle.sendDrep(null)).code());
        assertEquals(Errno.EINVAL, assertThrows(Errno.class,
                () -> idle.sendRej(CmRejectReason.CONSUMER_DEFINED, null, null)).code());
        assertEquals(Errno.EINVAL, assertThrows(Errno.class, () -> idle.sendMra(1, null)).code());
        assertEquals(Errno.EINVAL, assertThrows(Errno.class, () -> idle.sendReq(CmFabric.request(f.portA, f.portB,
                SERVICE, 1, 1, new byte[93], 14, 1))).code(), "93 bytes of REQ private data");
        assertEquals(Errno.EINVAL, assertThrows(Errno.class, () -> idle.sendReq(new CmRequestParam(
                CmFabric.path(f.portA, f.portB), null, SERVICE, 1, QpType.UD, 1, null, 0, 0, 14, false, 14, 0, 0, 1,
                false))).code(), "a UD QP connects through SIDR");
        assertEquals(Errno.EINVAL, assertThrows(Errno.class, () -> idle.sendReq(CmFabric.request(f.portB, f.portA,
                SERVICE, 1, 1, null, 14, 1))).code(), "the path's SGID is no port of this HCA");
        idle.destroy();
        assertEquals(Errno.EINVAL, assertThrows(Errno.class, () -> idle.listen(SERVICE, 0)).code());
        assertTrue(f.wire().isEmpty());
    }

    @Test
    void sidrResolvesAServiceToTheRespondersQpnAndQkey() throws Exception {
        listener();
        passive.then = (id, e) -> {
            if (e instanceof CmEvent.SidrReqReceived) {
                try {
                    id.sendSidrRep(new SidrReplyParam(0x333, 0x11111111, SidrStatus.SUCCESS, null, bytes(3, 1)));
                } catch (Errno x) {
                    throw new AssertionError(x);
                }
            }
        };
        CmId a = f.cm.createId(f.a, active);
        a.sendSidrReq(new SidrRequestParam(CmFabric.path(f.portA, f.portB), SERVICE, 100, bytes(7, 7), 3));
        CmEvent.SidrReqReceived req = (CmEvent.SidrReqReceived) passive.next(CmEvent.SidrReqReceived.class).event();
        assertEquals(0xffff, req.pkey());
        assertArrayEquals(bytes(7, 7), Arrays.copyOf(req.privateData(), 7));
        CmEvent.SidrRepReceived rep = (CmEvent.SidrRepReceived) active.next(CmEvent.SidrRepReceived.class).event();
        assertEquals(SidrStatus.SUCCESS.code(), rep.status());
        assertEquals(0x333, rep.qpn());
        assertEquals(0x11111111, rep.qkey());
        assertEquals(136, rep.privateData().length);
        assertEquals(CmState.IDLE, a.state());
        assertEquals(List.of("A>SIDR_REQ", "B>SIDR_REP"), f.exchanges());
    }

    @Test
    void sidrToAServiceNobodyListensOnIsUnsupported() throws Exception {
        CmId a = f.cm.createId(f.a, active);
        a.sendSidrReq(new SidrRequestParam(CmFabric.path(f.portA, f.portB), SERVICE, 100, null, 3));
        CmEvent.SidrRepReceived rep = (CmEvent.SidrRepReceived) active.next(CmEvent.SidrRepReceived.class).event();
        assertEquals(SidrStatus.UNSUPPORTED.code(), rep.status());
    }

    @Test
    void ackTimeoutRoundsAsTheKernelDoes() {
        assertEquals(2, CmId.ackTimeout(0, 0));
        assertEquals(19, CmId.ackTimeout(0, 18), "OpenSM's packet life 0x12 with no CA ACK delay: life + 1");
        assertEquals(15, CmId.ackTimeout(15, 3), "the ACK delay dominates");
        assertEquals(16, CmId.ackTimeout(15, 13), "within 50%: rounded up");
        assertEquals(31, CmId.ackTimeout(0, 31));
        assertEquals(1, Cm.toMs(8));
        assertEquals(4096, Cm.toMs(20));
    }
}
