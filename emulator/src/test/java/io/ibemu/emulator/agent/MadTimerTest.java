package io.ibemu.emulator.agent;

import static io.ibemu.emulator.agent.LineFabric.dr;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.ibemu.emulator.mad.Method;
import io.ibemu.emulator.mad.SmAttribute;
import io.ibemu.emulator.mad.Smp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The response timer of the MAD layer: a send answered while it crosses the fabric never
 * arms one, an unanswered send keeps exactly one until it expires, and a timer cancelled by a
 * late answer leaves the timer's queue (thousands of sends in flight, as a pipelined client
 * keeps them, must not leave thousands of dead entries).
 */
class MadTimerTest {
    private LineFabric f;

    @BeforeEach
    void build() throws Exception {
        f = new LineFabric();
    }

    @AfterEach
    void close() {
        f.close();
    }

    @Test
    void sendsAnsweredDuringTransmitArmNoTimer() throws Exception {
        for (int i = 0; i < 1000; i++) {
            f.post(f.smAgent, dr(Method.GET, SmAttribute.NODE_INFO, 0, LineFabric.TO_B), Smp.PERMISSIVE_LID,
                    60_000, 3);
        }
        for (int i = 0; i < 1000; i++) {
            assertNotNull(f.sm.nextReceived(2000), "response " + i);
            assertEquals(SendStatus.SUCCESS, f.sm.nextCompletion(2000).status());
        }
        assertEquals(0, f.layer.timersQueued(), "no timer queued for sends whose answer came at once");
    }

    @Test
    void anUnansweredSendKeepsOneTimerUntilItExpires() throws Exception {
        // S1 has no port 9: the SMP is lost, so only the timer can complete it
        f.post(f.smAgent, dr(Method.GET, SmAttribute.NODE_INFO, 0, 1, 9), Smp.PERMISSIVE_LID, 30, 2);
        assertEquals(1, f.layer.timersQueued(), "one timer for the lost send");
        Recorder.Completion c = f.sm.nextCompletion(5000);
        assertNotNull(c);
        assertEquals(SendStatus.RESPONSE_TIMEOUT, c.status());
        assertEquals(0, f.layer.timersQueued(), "nothing left once it expired after its retries");
    }

    @Test
    void unregisteringFlushesTheSendAndItsTimerLeavesTheQueue() throws Exception {
        f.post(f.smAgent, dr(Method.GET, SmAttribute.NODE_INFO, 0, 1, 9), Smp.PERMISSIVE_LID, 60_000, 0);
        assertEquals(1, f.layer.timersQueued());
        synchronized (f.fabric.lock()) {
            f.smAgent.port().unregister(f.smAgent);
        }
        assertEquals(SendStatus.FLUSHED, f.sm.nextCompletion(2000).status());
        assertEquals(0, f.layer.timersQueued(), "the cancelled timer is gone from the queue");
    }
}
