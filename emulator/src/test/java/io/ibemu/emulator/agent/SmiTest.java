package io.ibemu.emulator.agent;

import io.ibemu.emulator.mad.Mad;
import io.ibemu.emulator.mad.Method;
import io.ibemu.emulator.mad.MgmtClass;
import io.ibemu.emulator.mad.Smp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The directed-route rules of IBA 14.2.2 (C14-9 outgoing, C14-13 returning) as the kernel's
 * smi.c/smi.h apply them, one table row per branch: whether the SMP is handled or discarded,
 * where the hop pointer ends up, and what is written into the return path.
 */
class SmiTest {
    private static final int P = Smp.PERMISSIVE_LID;
    private static final int LID = 0x0007;

    /** A DR SMP; {@code initial[i]} / {@code ret[i]} land at path index i + 1 (index 0 is unused). */
    static byte[] smp(boolean returning, int hopPtr, int hopCnt, int drSlid, int drDlid, int[] initial, int[] ret) {
        byte[] m = new byte[Mad.SIZE];
        m[0] = 1;
        m[1] = (byte) MgmtClass.SUBN_DIRECTED_ROUTE;
        m[2] = 1;
        m[3] = (byte) (returning ? Method.GET_RESP : Method.GET);
        m[4] = (byte) (returning ? 0x80 : 0);
        m[6] = (byte) hopPtr;
        m[7] = (byte) hopCnt;
        m[32] = (byte) (drSlid >>> 8);
        m[33] = (byte) drSlid;
        m[34] = (byte) (drDlid >>> 8);
        m[35] = (byte) drDlid;
        for (int i = 0; i < initial.length; i++) {
            m[Smp.INITIAL_PATH + 1 + i] = (byte) initial[i];
        }
        for (int i = 0; i < ret.length; i++) {
            m[Smp.RETURN_PATH + 1 + i] = (byte) ret[i];
        }
        return m;
    }

    private static int[] path(String dashed) {
        if (dashed == null || dashed.isEmpty() || dashed.equals("-")) {
            return new int[0];
        }
        return Arrays.stream(dashed.split("/")).mapToInt(Integer::parseInt).toArray();
    }

    private static int lid(String s) {
        return s.equals("P") ? P : LID;
    }

    private static int[] returnPath(byte[] m, int upTo) {
        int[] r = new int[upTo];
        for (int i = 0; i < upTo; i++) {
            r[i] = Smp.returnPath(m, i + 1);
        }
        return r;
    }

    // ---- __smi_handle_dr_smp_send ----

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        // rule                                   |sw   |port|ret  |hp|hc|slid|dlid|initial|ret   |handled|hp after
        "C14-9:1 originator, right port           |false|1   |false|0 |3 |P   |P   |1/3/4  |-     |true   |1",
        "C14-9:1 originator, path names port 1    |false|2   |false|0 |3 |P   |P   |1/3/4  |-     |false  |1",
        "C14-9:2 switch relays on initial[hp+1]   |true |3   |false|1 |3 |P   |P   |1/3/4  |-     |true   |2",
        "C14-9:2 switch relays on another port    |true |2   |false|1 |3 |P   |P   |1/3/4  |-     |false  |2",
        "C14-9:2 a CA is never an intermediate hop|false|3   |false|1 |3 |P   |P   |1/3/4  |-     |false  |1",
        "C14-9:3 end of path at a switch          |true |4   |false|3 |3 |P   |LID |1/3/4  |-     |true   |4",
        "C14-9:3 end of path at CA, DLID permissive|false|2  |false|3 |3 |P   |P   |1/3/4  |-     |true   |4",
        "C14-9:3 end at a CA with a LID-routed tail|false|2  |false|3 |3 |P   |LID |1/3/4  |-     |false  |4",
        "C14-9:3 hop count 0: the node itself     |false|1   |false|0 |0 |P   |P   |-      |-     |true   |1",
        "C14-9:4 hop pointer past the path        |false|1   |false|4 |3 |P   |P   |1/3/4  |-     |true   |4",
        "C14-9:5 unreasonable hop pointer         |true |1   |false|5 |3 |P   |P   |1/3/4  |-     |false  |5",
        "C14-9 hop count 63 is still valid        |false|1   |false|0 |63|P   |P   |1      |-     |true   |1",
        "C14-6 hop count 64 is discarded          |false|1   |false|0 |64|P   |P   |1      |-     |false  |0",
        "C14-13:1 responder, right return port    |false|2   |true |4 |3 |P   |P   |1/3/4  |1/2/2 |true   |3",
        "C14-13:1 responder, another port         |false|1   |true |4 |3 |P   |P   |1/3/4  |1/2/2 |false  |3",
        "C14-13:2 switch returns on ret[hp-1]     |true |2   |true |3 |3 |P   |P   |1/3/4  |1/2/2 |true   |2",
        "C14-13:2 switch returns on another port  |true |3   |true |3 |3 |P   |P   |1/3/4  |1/2/2 |false  |2",
        "C14-13:2 a CA is never an intermediate hop|false|2  |true |3 |3 |P   |P   |1/3/4  |1/2/2 |false  |3",
        "C14-13:3 first switch: LID-routed to SM  |true |1   |true |1 |3 |LID |P   |1/3/4  |1/2/2 |true   |0",
        "C14-13:3 CA back at a permissive DrSLID  |false|1   |true |1 |3 |P   |P   |1/3/4  |1/2/2 |true   |0",
        "C14-13:3 CA with a non-permissive DrSLID |false|1   |true |1 |3 |LID |P   |1/3/4  |1/2/2 |false  |0",
        "C14-13:3 response of a 0-hop SMP         |false|1   |true |1 |0 |P   |P   |-      |-     |true   |0",
        "C14-13:4 hop pointer 0                   |false|1   |true |0 |3 |P   |P   |1/3/4  |1/2/2 |true   |0",
        "C14-13:5 unreasonable hop pointer        |true |1   |true |5 |3 |P   |P   |1/3/4  |1/2/2 |false  |5",
        "C14-6 returning hop count 64             |true |1   |true |65|64|P   |P   |1      |1     |false  |65",
    })
    void send(String rule, boolean isSwitch, int port, boolean returning, int hopPtr, int hopCnt, String slid,
              String dlid, String initial, String ret, boolean handled, int hopPtrAfter) {
        byte[] m = smp(returning, hopPtr, hopCnt, lid(slid), lid(dlid), path(initial), path(ret));
        byte[] before = m.clone();
        assertEquals(handled, Smi.send(m, isSwitch, port), rule);
        assertEquals(hopPtrAfter, Smp.hopPointer(m), rule + ": hop pointer");
        before[6] = m[6];
        assertTrue(Arrays.equals(before, m), rule + ": send changes only the hop pointer");
    }

    // ---- __smi_handle_dr_smp_recv ----

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        // rule                                   |sw   |port|ports|ret  |hp|hc|slid|dlid|initial|ret   |handled|hp after|ret after
        "C14-9:1 hop pointer not advanced by sender|true |1  |8    |false|0 |3 |P   |P   |1/3/4  |-     |false  |0 |0/0/0",
        "C14-9:2 switch records arrival port      |true |5   |8    |false|1 |3 |P   |P   |1/3/4  |-     |true   |1 |5/0/0",
        "C14-9:2 next port beyond the switch      |true |5   |8    |false|1 |3 |P   |P   |1/9/4  |-     |false  |1 |5/0/0",
        "C14-9:2 next port = port count is valid  |true |5   |8    |false|2 |3 |P   |P   |1/3/8  |-     |true   |2 |0/5/0",
        "C14-9:2 a CA as an intermediate hop      |false|1   |2    |false|1 |3 |P   |P   |1/3/4  |-     |false  |1 |0/0/0",
        "C14-9:3 destination switch records port  |true |7   |8    |false|3 |3 |P   |LID |1/3/4  |-     |true   |3 |0/0/7",
        "C14-9:3 destination CA, DLID permissive  |false|2   |2    |false|3 |3 |P   |P   |1/3/4  |-     |true   |3 |0/0/2",
        "C14-9:3 destination CA, DLID non-perm.   |false|2   |2    |false|3 |3 |P   |LID |1/3/4  |-     |false  |3 |0/0/2",
        "C14-9:3 hop count 0 records nothing      |false|1   |2    |false|0 |0 |P   |P   |-      |-     |true   |0 |0/0/0",
        "C14-9:4 past the path: to the SMA        |false|1   |2    |false|4 |3 |P   |P   |1/3/4  |-     |true   |4 |0/0/0",
        "C14-9:5 unreasonable hop pointer         |true |1   |8    |false|6 |3 |P   |P   |1/3/4  |-     |false  |6 |0/0/0",
        "C14-6 hop count 64                       |true |1   |8    |false|1 |64|P   |P   |1/3/4  |-     |false  |1 |0/0/0",
        "C14-13:1 arrival = ret[hop count]        |false|2   |2    |true |4 |3 |P   |P   |1/3/4  |1/2/2 |true   |3 |1/2/2",
        "C14-13:1 arrival on another port         |false|1   |2    |true |4 |3 |P   |P   |1/3/4  |1/2/2 |false  |3 |1/2/2",
        "C14-13:2 switch, next port exists        |true |4   |8    |true |3 |3 |P   |P   |1/3/4  |1/8/2 |true   |3 |1/8/2",
        "C14-13:2 switch, next port beyond it     |true |4   |8    |true |3 |3 |P   |P   |1/3/4  |1/9/2 |false  |3 |1/9/2",
        "C14-13:2 a CA as an intermediate hop     |false|2   |2    |true |2 |3 |P   |P   |1/3/4  |1/2/2 |false  |2 |1/2/2",
        "C14-13:3 back at a permissive DrSLID     |false|1   |2    |true |1 |3 |P   |P   |1/3/4  |1/2/2 |true   |0 |1/2/2",
        "C14-13:3 switch at a permissive DrSLID   |true |1   |8    |true |1 |3 |P   |P   |1/3/4  |1/2/2 |true   |0 |1/2/2",
        "C14-13:3 switch before a LID-routed tail |true |3   |8    |true |1 |3 |LID |P   |1/3/4  |1/2/2 |true   |1 |1/2/2",
        "C14-13:3 CA with a non-permissive DrSLID |false|1   |2    |true |1 |3 |LID |P   |1/3/4  |1/2/2 |false  |1 |1/2/2",
        "C14-13:4 hop pointer 0: to the SM        |false|1   |2    |true |0 |3 |LID |P   |1/3/4  |1/2/2 |true   |0 |1/2/2",
        "C14-13:5 unreasonable hop pointer        |true |1   |8    |true |5 |3 |P   |P   |1/3/4  |1/2/2 |false  |5 |1/2/2",
        "C14-6 returning hop count 64             |true |1   |8    |true |1 |64|P   |P   |1/3/4  |1/2/2 |false  |1 |1/2/2",
    })
    void receive(String rule, boolean isSwitch, int port, int portCount, boolean returning, int hopPtr, int hopCnt,
                 String slid, String dlid, String initial, String ret, boolean handled, int hopPtrAfter,
                 String retAfter) {
        byte[] m = smp(returning, hopPtr, hopCnt, lid(slid), lid(dlid), path(initial), path(ret));
        assertEquals(handled, Smi.receive(m, isSwitch, port, portCount), rule);
        assertEquals(hopPtrAfter, Smp.hopPointer(m), rule + ": hop pointer");
        assertEquals(Arrays.toString(path(retAfter)), Arrays.toString(returnPath(m, 3)), rule + ": return path");
        assertEquals(Arrays.toString(Arrays.copyOf(path(initial), 3)),
                Arrays.toString(new int[] {Smp.initialPath(m, 1), Smp.initialPath(m, 2), Smp.initialPath(m, 3)}),
                rule + ": initial path untouched");
    }

    // ---- smi_check_forward_dr_smp, smi_get_fwd_port ----

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        // case                                   |ret  |hp|hc|slid|dlid|next   |fwd port
        "outgoing, intermediate hop               |false|1 |3 |P   |P   |FORWARD|3",
        "outgoing, last intermediate hop          |false|2 |3 |P   |P   |FORWARD|4",
        "outgoing, end of path, DLID permissive   |false|3 |3 |P   |P   |SEND   |-1",
        "outgoing, end of path, LID-routed tail   |false|3 |3 |P   |LID |LOCAL  |-1",
        "outgoing, hop count 0                    |false|0 |0 |P   |P   |SEND   |-1",
        "outgoing, hop pointer past the path      |false|4 |3 |P   |P   |SEND   |-1",
        "outgoing, hop pointer 0 with hops left   |false|0 |3 |P   |P   |LOCAL  |-1",
        "returning, intermediate hop              |true |3 |3 |P   |P   |FORWARD|2",
        "returning, last intermediate hop         |true |2 |3 |P   |P   |FORWARD|1",
        "returning, first hop, DrSLID a LID       |true |1 |3 |LID |P   |SEND   |-1",
        "returning, first hop, DrSLID permissive  |true |1 |3 |P   |P   |LOCAL  |-1",
        "returning, hop pointer 0                 |true |0 |3 |P   |P   |LOCAL  |-1",
        "returning, hop pointer past the path     |true |4 |3 |P   |P   |LOCAL  |-1",
    })
    void next(String name, boolean returning, int hopPtr, int hopCnt, String slid, String dlid, Smi.Next next,
              int forwardPort) {
        byte[] m = smp(returning, hopPtr, hopCnt, lid(slid), lid(dlid), new int[] {1, 3, 4}, new int[] {1, 2, 2});
        assertEquals(next, Smi.next(m), name);
        if (forwardPort >= 0) {
            assertEquals(forwardPort, Smi.forwardPort(m), name + ": forward port");
        }
    }

    // ---- isLidRouted, isLocal, isLocalReturning ----

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        // case                                            |class|ret  |hp|hc|slid|lid routed
        "LID-routed SMP                                    |1    |false|0 |0 |P   |true",
        "PerfMgmt                                          |4    |false|0 |0 |P   |true",
        "SA                                                |3    |true |0 |0 |P   |true",
        "DR head: hop pointer 0, hops to go                |129  |false|0 |2 |LID |true",
        "DR 0-hop SMP to the local SMA                     |129  |false|0 |0 |P   |false",
        "DR request on its path                            |129  |false|1 |2 |LID |false",
        "DR request past its path                          |129  |false|3 |2 |P   |false",
        "DR tail: response at hop 0, DrSLID a LID          |129  |true |0 |2 |LID |true",
        "DR response at hop 0, DrSLID permissive           |129  |true |0 |2 |P   |false",
        "DR response on its return path, DrSLID a LID      |129  |true |1 |2 |LID |false",
    })
    void isLidRouted(String name, int mgmtClass, boolean returning, int hopPtr, int hopCnt, String slid,
                     boolean lidRouted) {
        byte[] m = smp(returning, hopPtr, hopCnt, lid(slid), P, new int[] {1, 3}, new int[] {1, 2});
        m[1] = (byte) mgmtClass;
        assertEquals(lidRouted, Smi.isLidRouted(m), name);
    }

    @Test
    void localAndLocalReturning() {
        byte[] sent = smp(false, 1, 0, P, P, new int[0], new int[0]);
        assertTrue(Smi.isLocal(sent), "a 0-hop request after send(): hop pointer = hop count + 1");
        assertFalse(Smi.isLocalReturning(sent));
        assertFalse(Smi.isLocal(smp(false, 1, 2, P, P, new int[] {1, 3}, new int[0])), "a request with hops to go");
        assertFalse(Smi.isLocal(smp(true, 1, 0, P, P, new int[0], new int[0])), "a response is never local");
        assertTrue(Smi.isLocalReturning(smp(true, 0, 2, P, P, new int[] {1, 3}, new int[] {1, 2})));
        assertFalse(Smi.isLocalReturning(smp(true, 1, 2, P, P, new int[] {1, 3}, new int[] {1, 2})));
        assertFalse(Smi.isLocalReturning(smp(false, 0, 2, P, P, new int[] {1, 3}, new int[0])),
                "hop pointer 0 on the way out is not a returning SMP");
    }

    /**
     * A whole round trip CA(port 1) - switch A (in 1, out 3) - switch B (in 2, out 4) - CA (in 2),
     * each node applying receive, next and send as mad.c's handle_ib_smi and agent_send_response do:
     * the hop pointer climbs to hop count + 1, the return path fills with arrival ports, and the
     * response climbs back down to 0 through the recorded ports.
     */
    @Test
    void roundTripThroughTwoSwitches() {
        byte[] m = smp(false, 0, 3, P, P, new int[] {1, 3, 4}, new int[0]);
        assertTrue(Smi.send(m, false, 1), "originator sends on initial[1]");
        assertEquals(1, Smp.hopPointer(m));

        assertTrue(Smi.receive(m, true, 1, 8), "switch A");
        assertEquals(Smi.Next.FORWARD, Smi.next(m));
        assertEquals(3, Smi.forwardPort(m));
        assertTrue(Smi.send(m, true, 3));
        assertEquals(2, Smp.hopPointer(m));

        assertTrue(Smi.receive(m, true, 2, 8), "switch B");
        assertEquals(Smi.Next.FORWARD, Smi.next(m));
        assertEquals(4, Smi.forwardPort(m));
        assertTrue(Smi.send(m, true, 4));
        assertEquals(3, Smp.hopPointer(m));

        assertTrue(Smi.receive(m, false, 2, 2), "destination CA");
        assertEquals(Smi.Next.SEND, Smi.next(m));
        assertTrue(Smi.send(m, false, 2));
        assertEquals(4, Smp.hopPointer(m), "hop count + 1: for the SMA");
        assertEquals("[1, 2, 2]", Arrays.toString(returnPath(m, 3)), "arrival ports recorded");

        m[4] |= (byte) 0x80; // the SMA's GetResp, D bit set
        assertTrue(Smi.send(m, false, 2), "responder leaves by ret[3], its arrival port");
        assertEquals(3, Smp.hopPointer(m));

        assertTrue(Smi.receive(m, true, 4, 8), "switch B on the way back");
        assertEquals(Smi.Next.FORWARD, Smi.next(m));
        assertEquals(2, Smi.forwardPort(m));
        assertTrue(Smi.send(m, true, 2));
        assertEquals(2, Smp.hopPointer(m));

        assertTrue(Smi.receive(m, true, 3, 8), "switch A on the way back");
        assertEquals(Smi.Next.FORWARD, Smi.next(m));
        assertEquals(1, Smi.forwardPort(m));
        assertTrue(Smi.send(m, true, 1));
        assertEquals(1, Smp.hopPointer(m));

        assertTrue(Smi.receive(m, false, 1, 2), "originator");
        assertEquals(0, Smp.hopPointer(m), "a permissive DrSLID takes the pointer to 0 on arrival");
        assertEquals(Smi.Next.LOCAL, Smi.next(m));
        assertTrue(Smi.isLocalReturning(m));
    }
}
