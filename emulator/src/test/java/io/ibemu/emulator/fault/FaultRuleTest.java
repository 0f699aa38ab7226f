package io.ibemu.emulator.fault;

import io.ibemu.kernel.Errno;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The rule grammar: what it reads, what it refuses (with one line), and random words thrown at it. */
class FaultRuleTest {

    @Test
    void readsWhatWhereWhenAndEffect() throws Exception {
        FaultRule r = FaultRule.parse("on=uverbs:create_qp  pid=42 comm=ibv_rc_pingpong errno=enomem nth=1 count=1 "
                + "after=10ms for=2s");
        assertEquals(Point.UVERBS, r.point());
        assertEquals("CREATE_QP", r.name());
        assertEquals("42", r.scope().get("pid"));
        assertEquals("ibv_rc_pingpong", r.scope().get("comm"));
        assertEquals(Errno.ENOMEM, r.errno());
        assertEquals(1, r.nth());
        assertEquals(Duration.ofMillis(10), r.after());
        assertEquals(Duration.ofSeconds(2), r.lasting());
        assertEquals(r, FaultRule.parse(r.toString()), "the canonical words read back to the same rule");
    }

    @Test
    void readsCompletionAndEventRules() throws Exception {
        FaultRule wc = FaultRule.parse("on=wc dev=ibemu0 qpn=0x11 opcode=send status=ibv_wc_rem_access_err count=1");
        assertEquals(Point.WC, wc.point());
        assertEquals(10, wc.status());
        assertEquals("17", wc.scope().get("qpn"));
        assertEquals("SEND", wc.scope().get("opcode"));
        assertEquals(wc, FaultRule.parse(wc.toString()));
        FaultRule ev = FaultRule.parse("on=event dev=ibemu1 qpn=20 event=qp_fatal");
        assertEquals(io.ibemu.emulator.hca.AsyncEvent.Type.QP_FATAL, ev.event());
        assertEquals(ev, FaultRule.parse(ev.toString()));
    }

    @Test
    void readsPacketAndMadHarms() throws Exception {
        FaultRule p = FaultRule.parse("on=packet node=A port=1 qpn=0x12 opcode=rdma_write drop prob=0.01 seed=5");
        assertEquals(Point.PACKET, p.point());
        assertEquals(FaultRule.Harm.DROP, p.harm());
        assertEquals("18", p.scope().get("qpn"));
        assertEquals(p, FaultRule.parse(p.toString()));
        FaultRule d = FaultRule.parse("on=mad class=0x81 delay=500us");
        assertEquals(Duration.ofNanos(500_000), d.delay());
        assertEquals(d, FaultRule.parse(d.toString()));
        assertEquals(FaultRule.Harm.DUP, FaultRule.parse("on=mad dup").harm());
        FaultRule u = FaultRule.parse("on=ucma:resolve_route errno=ETIMEDOUT");
        assertEquals(Point.UCMA, u.point());
        assertEquals("RESOLVE_ROUTE", u.name());
    }

    @Test
    void probabilityAsFractionOrPercent() throws Exception {
        assertEquals(0.2, FaultRule.parse("on=uverbs:POST_SEND errno=EIO prob=20% seed=7").prob(), 1e-12);
        assertEquals(0.25, FaultRule.parse("on=uverbs:POLL_CQ errno=EAGAIN prob=0.25").prob(), 1e-12);
    }

    @Test
    void refusesEachMistakeWithOneLineNamingIt() {
        String[][] cases = {
            {"", "empty rule"},
            {"errno=ENOMEM", "no on="},
            {"on=uverbs errno=ENOMEM", "needs a name"},
            {"on=uverbs:CREATE_QP", "needs an effect"},
            {"on=uverbs:CREATE_QP errno=ENOMEN", "ENOMEN"},
            {"on=uverbs:CREATE_QP errno=ENOMEM nth=0", "nth=0 is below 1"},
            {"on=uverbs:CREATE_QP errno=ENOMEM nth=x", "not a whole number"},
            {"on=uverbs:CREATE_QP errno=ENOMEM nth=1 nth=2", "given twice"},
            {"on=uverbs:CREATE_QP errno=ENOMEM colour=red", "unknown key 'colour'"},
            {"on=uverbs:CREATE_QP errno=ENOMEM qpn=5", "qpn= does not apply to on=uverbs"},
            {"on=uverbs:CREATE_QP drop", "'drop' is no effect of on=uverbs"},
            {"on=uverbs:CREATE_QP errno=ENOMEM seed=3", "seed= without prob="},
            {"on=uverbs:CREATE_QP errno=ENOMEM prob=1.5", "not in (0, 1]"},
            {"on=uverbs:CREATE_QP errno=ENOMEM prob=abc", "not a number"},
            {"on=uverbs:CREATE_QP errno=ENOMEM after=5", "not a duration"},
            {"on=uverbs:CREATE_QP errno=", "no value after '='"},
            {"on=uverbs:CREATE_QP errno", "needs a value"},
            {"=x on=uverbs:REG_MR errno=EIO", "has no key"},
            {"on=umad errno=EIO", "needs a name"},
            {"on=umad:write drop", "'drop' is no effect of on=umad"},
            {"on=teleport errno=EIO", "unknown point 'teleport'"},
            {"on=packet drop dup", "drop and dup together"},
            {"on=wc side=both status=LOC_LEN_ERR", "write side=send"},
            {"on=packet errno=EIO", "'errno' is no effect of on=packet"},
            {"on=packet", "needs an effect: drop, dup, corrupt or reorder"},
            {"on=packet reorder=2", "reorder takes no value"},
            {"on=packet drop dev=ibemu0", "dev= does not apply to on=packet"},
            {"on=mad delay=5 class=0x81", "not a duration"},
            {"on=mad drop delay=5ms", "delay= and drop together"},
            {"on=mad reorder", "'reorder' is no effect of on=mad"},
            {"on=wc status=SUCCESS", "no error completion status"},
            {"on=wc", "needs an effect: status="},
            {"on=wc status=RETRY_EXC_ERR opcode=JUMP", "no work request opcode"},
            {"on=wc status=RETRY_EXC_ERR pid=3", "pid= does not apply to on=wc"},
            {"on=event event=QP_EXPLODED", "no asynchronous event"},
            {"on=event event=QP_FATAL qpn=1 nth=1", "acts once, when the rule is added"},
            {"on=event:QP_FATAL event=QP_FATAL", "takes no ':NAME'"},
            {"on=uverbs:CREATE-QP errno=EIO", "is not a name"},
        };
        for (String[] c : cases) {
            FaultSyntaxException e = assertThrows(FaultSyntaxException.class, () -> FaultRule.parse(c[0]), c[0]);
            assertTrue(e.getMessage().contains(c[1]), c[0] + " -> " + e.getMessage());
            assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
        }
    }

    /** Random words from the grammar's own vocabulary and noise: a rule or one clear line, never anything else. */
    @Test
    void fuzzedRulesParseOrFailWithOneLine() {
        String[] vocabulary = {"on=uverbs:CREATE_QP", "on=uverbs:", "on=umad:write", "on=umad", "on=", "on=mad",
            "errno=ENOMEM", "errno=EIO", "errno=12", "nth=1", "nth=-1", "every=3", "prob=0.5", "prob=50%", "prob=0",
            "seed=1", "seed=-9", "count=2", "after=1s", "for=10ms", "for=1h", "pid=1", "pid=x", "comm=a", "dev=ibemu0",
            "port=1", "drop", "dup", "corrupt", "reorder", "delay=20ms", "on=packet", "on=ucma:CONNECT", "on=wc", "on=event", "status=RETRY_EXC_ERR", "event=PORT_ERR", "qpn=0x12", "opcode=SEND", "=", "==", "x=y", "nth=99999999999999999999", "on=uverbs:REG_MR", "\u00e9=1", "#", "prob=NaN"};
        Random random = new Random(24);
        for (int i = 0; i < 20_000; i++) {
            StringBuilder b = new StringBuilder();
            int n = random.nextInt(6);
            for (int k = 0; k < n; k++) {
                b.append(vocabulary[random.nextInt(vocabulary.length)]).append(random.nextBoolean() ? " " : "\t ");
                if (random.nextInt(20) == 0) {
                    b.append((char) random.nextInt(0x80));
                }
            }
            String text = b.toString();
            try {
                FaultRule r = FaultRule.parse(text);
                assertEquals(r, FaultRule.parse(r.toString()), text);
            } catch (FaultSyntaxException e) {
                assertFalse(e.getMessage().isBlank(), text);
                assertFalse(e.getMessage().contains("\n"), text + " -> " + e.getMessage());
            } catch (RuntimeException e) {
                throw new AssertionError("'" + text + "' threw " + e, e);
            }
        }
    }

    @Test
    void aMalformedRuleChangesNothingInTheTable() throws Exception {
        Faults faults = new Faults();
        faults.offer(Point.UVERBS, java.util.Set.of("CREATE_QP", "REG_MR"));
        int id = faults.add("on=uverbs:REG_MR errno=ENOMEM");
        assertThrows(FaultSyntaxException.class, () -> faults.add("on=uverbs:REG_MR errno=ENOMEM nth=0"));
        FaultSyntaxException e = assertThrows(FaultSyntaxException.class, () -> faults.add("on=uverbs:CREAT_QP errno=EIO"));
        assertTrue(e.getMessage().contains("CREATE_QP"), e.getMessage());
        assertEquals(List.of(id + " hits=0 matched=0 on=uverbs:REG_MR errno=ENOMEM"), faults.list());
    }
}
