package io.ibemu.emulator.agent;

import static io.ibemu.emulator.agent.LineFabric.LID_A;
import static io.ibemu.emulator.agent.LineFabric.LID_B;
import static io.ibemu.emulator.agent.LineFabric.LID_S1;
import static io.ibemu.emulator.agent.LineFabric.TO_S1;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ibemu.emulator.mad.Mad;
import io.ibemu.emulator.mad.Method;
import io.ibemu.emulator.mad.MgmtClass;
import io.ibemu.emulator.mad.PortInfo;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * SMA traps on the A - S1 - S2 - B fabric with an SM agent on A's port (LID 1) registered for
 * SubnTrap on QP0: trap 128 from a switch whose link changes, trap 144 from a CA port whose
 * CapabilityMask changes, each repeated every subnet timeout (here SubnetTimeout 0: the 100 ms
 * floor) until the SM's TrapRepress with the same TID reaches the issuer.
 */
class TrapSenderTest {
    private static final int D = 64;
    private static final int METHOD_TRAP = 0x05;
    private static final int ATTR_NOTICE = 0x0002;
    private static final int REPEAT_MS = 100;
    /** Long enough for several repeats to have come, had there been any. */
    private static final int QUIET_MS = 3 * REPEAT_MS + 50;

    private LineFabric f;
    private final Recorder sm = new Recorder();
    private MadAgent trapAgent;

    @BeforeEach
    void build() throws Exception {
        f = new LineFabric();
        trapAgent = f.register(f.a.port(1), 0,
                new MadRegistration(MgmtClass.SUBN_LID_ROUTED, 1, new long[] {1L << METHOD_TRAP, 0}, 0), sm);
    }

    @AfterEach
    void close() {
        f.close();
    }

    private static int u16(byte[] m, int off) {
        return ((m[off] & 0xFF) << 8) | (m[off + 1] & 0xFF);
    }

    private static int u24(byte[] m, int off) {
        return ((m[off] & 0xFF) << 16) | u16(m, off + 1);
    }

    private static int u32(byte[] m, int off) {
        return (u16(m, off) << 16) | u16(m, off + 2);
    }

    /** A Notice (IBA 14.2.5.1) as a generic trap; returns the MAD. */
    private static byte[] assertNotice(Recorder.Received r, int type, int producer, int trap, int issuerLid) {
        assertNotNull(r, "trap " + trap + " reached the SM");
        byte[] m = r.mad().message();
        assertEquals(MgmtClass.SUBN_LID_ROUTED, Mad.mgmtClass(m));
        assertEquals(METHOD_TRAP, Mad.method(m));
        assertEquals(ATTR_NOTICE, Mad.attributeId(m));
        assertEquals(issuerLid, r.mad().slid(), "sent from the issuer's LID");
        assertEquals(0, r.mad().srcQp(), "from QP0");
        assertEquals(0x80, m[D] & 0x80, "IsGeneric");
        assertEquals(type, m[D] & 0x7F, "Type");
        assertEquals(producer, u24(m, D + 1), "ProducerType");
        assertEquals(trap, u16(m, D + 4), "TrapNumber");
        assertEquals(issuerLid, u16(m, D + 6), "IssuerLID");
        return m;
    }

    private byte[] repress(byte[] trap, int issuerLid) throws Exception {
        byte[] repress = trap.clone();
        repress[3] = Method.TRAP_REPRESS;
        SendRequest s = f.post(trapAgent, repress, issuerLid, 0, 0);
        Recorder.Completion c = sm.nextCompletion(1000);
        assertEquals(s, c.send());
        assertEquals(SendStatus.SUCCESS, c.status());
        return repress;
    }

    /** Nothing more within {@link #QUIET_MS}, once traps already on their way are taken. */
    private void assertQuiet(String why) throws InterruptedException {
        assertNull(sm.nextReceived(QUIET_MS), why);
    }

    @Test
    void cutSwitchLinkSendsTrap128UntilRepressed() throws Exception {
        f.assignLids(LID_A);
        long first = System.nanoTime(); // before the cut: the repeat's clock starts inside it
        f.s1.port(3).cut();

        byte[] trap = assertNotice(sm.nextReceived(1000), 1, 2, 128, LID_S1);
        assertEquals(LID_S1, u16(trap, D + 10), "LIDADDR: the switch whose link changed");

        // not repressed: the same trap (same TID) again after a subnet timeout, and again
        Recorder.Received again = sm.nextReceived(2000);
        assertNotNull(again, "repeated");
        assertTrue(again.atNanos() - first >= TimeUnit.MILLISECONDS.toNanos(REPEAT_MS - 10),
                "not before the subnet timeout");
        assertArrayEquals(trap, again.mad().message(), "the same Notice, TID included");
        assertArrayEquals(trap, sm.nextReceived(2000).mad().message());

        repress(trap, LID_S1);
        sm.received.clear(); // a repeat may have raced the TrapRepress
        assertQuiet("no trap after TrapRepress");
    }

    @Test
    void aTrapRepressWithAnotherTidDoesNotStopTheTrap() throws Exception {
        f.assignLids(LID_A);
        f.s1.port(3).cut();
        byte[] trap = assertNotice(sm.nextReceived(1000), 1, 2, 128, LID_S1);
        byte[] other = trap.clone();
        Mad.setTransactionId(other, Mad.transactionId(trap) + 1000);
        repress(other, LID_S1);
        sm.received.clear();
        Recorder.Received again = sm.nextReceived(2000);
        assertNotNull(again, "still repeated");
        assertEquals(Mad.transactionId(trap), Mad.transactionId(again.mad().message()));
        repress(trap, LID_S1);
    }

    @Test
    void capabilityMaskChangeOnACaPortSendsTrap144WithTheNewMask() throws Exception {
        f.assignLids(LID_A);
        int before = f.b.port(2).capabilityMask();
        assertEquals(0, before & PortInfo.CAP_IS_SM);

        f.b.port(2).setCapabilityBits(PortInfo.CAP_IS_SM, 0);

        byte[] trap = assertNotice(sm.nextReceived(1000), 4, 1, 144, LID_B);
        int details = D + 10;
        assertEquals(LID_B, u16(trap, details + 2), "LID where the change occurred");
        assertEquals(before | PortInfo.CAP_IS_SM, u32(trap, details + 6), "the new CapabilityMask");
        assertEquals(f.b.port(2).capabilityMask2(), u16(trap, details + 12), "CapabilityMask2");

        assertArrayEquals(trap, sm.nextReceived(2000).mad().message(), "repeated until repressed");
        repress(trap, LID_B);
        sm.received.clear();
        assertQuiet("repressed");
    }

    @Test
    void aNewerTrapOfThePortReplacesTheOlderOne() throws Exception {
        f.assignLids(LID_A);
        f.b.port(2).setCapabilityBits(PortInfo.CAP_IS_SM, 0);
        byte[] first = assertNotice(sm.nextReceived(1000), 4, 1, 144, LID_B);
        f.b.port(2).setCapabilityBits(0, PortInfo.CAP_IS_SM);
        byte[] second = assertNotice(sm.nextReceived(1000), 4, 1, 144, LID_B);
        assertNotEquals(Mad.transactionId(first), Mad.transactionId(second), "a new trap, a new TID");
        assertEquals(0, u32(second, D + 16) & PortInfo.CAP_IS_SM, "the mask as it is now");

        Recorder.Received again = sm.nextReceived(2000);
        assertNotNull(again);
        assertEquals(Mad.transactionId(second), Mad.transactionId(again.mad().message()), "only the newer one repeats");
        repress(second, LID_B);
        sm.received.clear();
        assertQuiet("the older one was dropped when the newer replaced it");
    }

    @Test
    void settingBitsAlreadySetIsNoChangeAndNoTrap() throws Exception {
        f.assignLids(LID_A);
        int mask = f.b.port(2).capabilityMask();
        f.b.port(2).setCapabilityBits(mask & PortInfo.CAP_HAS_TRAP, 0);
        assertEquals(mask, f.b.port(2).capabilityMask());
        assertNull(sm.nextReceived(REPEAT_MS + 50));
    }

    @Test
    void noTrapWithoutAnSmLid() throws Exception {
        f.assignLids(0);
        f.s1.port(3).cut();
        f.b.port(2).setCapabilityBits(PortInfo.CAP_IS_SM, 0);
        assertQuiet("MasterSMLID 0: nowhere to send a trap");
    }

    @Test
    void noTrapFromAPortWithoutALid() throws Exception {
        f.assignLids(LID_A);
        f.setLid(TO_S1, 0, 0, LID_A); // S1 loses its LID, keeps its SM LID
        f.s1.port(3).cut();
        assertQuiet("an issuer without a LID sends no trap");
    }

    @Test
    void aTrapStopsRepeatingWhenTheIssuerForgetsItsSm() throws Exception {
        f.assignLids(LID_A);
        f.s1.port(3).cut();
        assertNotice(sm.nextReceived(1000), 1, 2, 128, LID_S1);
        f.setLid(TO_S1, 0, LID_S1, 0);
        sm.received.clear();
        assertQuiet("MasterSMLID cleared: the pending trap is forgotten");
    }
}
