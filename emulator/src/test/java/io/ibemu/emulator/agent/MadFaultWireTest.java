package io.ibemu.emulator.agent;

import static io.ibemu.emulator.agent.LineFabric.LID_B;
import static io.ibemu.emulator.agent.LineFabric.lidRouted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.fabric.Port.Counter;
import io.ibemu.emulator.fault.Faults;
import io.ibemu.emulator.mad.Mad;
import io.ibemu.emulator.mad.Method;
import io.ibemu.emulator.mad.SmAttribute;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * on=mad dup and delay= on the wire of A - S1 - S2 - B, through the real rule table: a duplicate
 * makes the whole way twice and its second answer finds no send; a MAD late beyond its timeout is
 * answered through the MAD layer's retry, and the late one still arrives after.
 */
class MadFaultWireTest {
    private LineFabric f;
    private final Faults faults = new Faults();

    @BeforeEach
    void build() throws Exception {
        f = new LineFabric();
        faults.attach(f.fabric);
        f.assignLids(0);
    }

    @AfterEach
    void close() {
        f.close();
    }

    @Test
    void aDuplicatedSmpIsAnsweredTwiceAndTheSecondAnswerFindsNoSend() throws Exception {
        faults.add("on=mad dup node=S1 port=3 nth=1");
        Port toB = f.s2.port(4);
        Port back = f.s1.port(3);
        long relayed = toB.counter(Counter.XMIT_PKTS);
        long answers = back.counter(Counter.RCV_PKTS);
        byte[] r = f.call(lidRouted(Method.GET, SmAttribute.NODE_INFO, 0), LID_B);
        assertEquals(Method.GET_RESP, Mad.method(r));
        assertEquals(relayed + 2, toB.counter(Counter.XMIT_PKTS), "the copy and the original both reach B");
        assertEquals(answers + 2, back.counter(Counter.RCV_PKTS), "B answers each");
        assertNull(f.sm.nextReceived(0), "one answer matched the send, the other was dropped");
        assertTrue(faults.list().get(0).startsWith("1 hits=1 "), faults.list().toString());
    }

    @Test
    void aSmpLateBeyondItsTimeoutIsAnsweredThroughTheRetryAndArrivesAfter() throws Exception {
        faults.add("on=mad delay=300ms node=S1 port=3 nth=1");
        Port toB = f.s2.port(4);
        long relayed = toB.counter(Counter.XMIT_PKTS);
        byte[] mad = lidRouted(Method.GET, SmAttribute.NODE_INFO, 0);
        // 100 ms timeout, one retry: the retry (on the same timer, before the late one) is answered
        SendRequest s = f.post(f.smAgent, mad, LID_B, 100, 1);
        assertNotNull(f.sm.nextReceived(5000), "the retry's answer");
        Recorder.Completion c = f.sm.nextCompletion(5000);
        assertEquals(s, c.send());
        assertEquals(SendStatus.SUCCESS, c.status());
        assertTrue(faults.list().get(0).startsWith("1 hits=1 matched=2 "), faults.list().toString());
        long end = System.nanoTime() + 5_000_000_000L;
        while (toB.counter(Counter.XMIT_PKTS) < relayed + 2 && System.nanoTime() < end) {
            Thread.sleep(5);
        }
        assertEquals(relayed + 2, toB.counter(Counter.XMIT_PKTS), "the late original crossed too");
        assertNull(f.sm.nextReceived(0), "its answer found no send");
    }
}
