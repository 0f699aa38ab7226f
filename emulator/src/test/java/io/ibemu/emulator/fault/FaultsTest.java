package io.ibemu.emulator.fault;

import io.ibemu.kernel.Errno;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The decision "does rule R hit this event", and the table's counts. */
class FaultsTest {
    private static final Facts ONE = Map.of("pid", "100", "comm", "one", "dev", "ibemu0")::get;
    private static final Facts TWO = Map.of("pid", "200", "comm", "two", "dev", "ibemu0")::get;

    /** Which of {@code n} calls of {@code name} fail, 1-based. */
    private static List<Integer> failing(Faults faults, String name, int n, Facts facts) {
        List<Integer> hit = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            try {
                faults.failCall(Point.UVERBS, name, facts);
            } catch (Errno e) {
                hit.add(i);
            }
        }
        return hit;
    }

    @Test
    void nthEveryAndCountPickTheMatchingEvents() throws Exception {
        Faults f = new Faults();
        f.add("on=uverbs:REG_MR errno=ENOMEM nth=3");
        assertEquals(List.of(3), failing(f, "REG_MR", 10, ONE));
        assertEquals(List.of(), failing(f, "CREATE_QP", 10, ONE), "another command does not match");
        f.clear();
        f.add("on=uverbs:REG_MR errno=ENOMEM every=4 count=2");
        assertEquals(List.of(4, 8), failing(f, "REG_MR", 20, ONE));
        assertTrue(f.list().get(0).contains("hits=2 matched=20"), f.list().toString());
    }

    @Test
    void theErrnoIsTheRulesAndTheExtendedCommandIsTheSameVerb() throws Exception {
        Faults f = new Faults();
        f.add("on=uverbs:CREATE_QP errno=EAGAIN");
        Errno e = assertThrows(Errno.class, () -> f.failCall(Point.UVERBS, "EX_CREATE_QP", ONE));
        assertEquals(Errno.EAGAIN, e.code());
    }

    @Test
    void aScopedRuleLeavesOtherProcessesAlone() throws Exception {
        Faults f = new Faults();
        f.add("on=uverbs:ALLOC_PD errno=ENOMEM pid=200");
        assertEquals(List.of(), failing(f, "ALLOC_PD", 5, ONE));
        assertEquals(List.of(1, 2, 3), failing(f, "ALLOC_PD", 3, TWO));
        f.clear();
        f.add("on=uverbs:ALLOC_PD errno=ENOMEM comm=one");
        assertEquals(List.of(1), failing(f, "ALLOC_PD", 1, ONE));
        assertEquals(List.of(), failing(f, "ALLOC_PD", 1, TWO));
    }

    @Test
    void aSeededProbabilityHitsTheSameEventsEachRun() throws Exception {
        List<List<Integer>> runs = new ArrayList<>();
        for (int run = 0; run < 2; run++) {
            Faults f = new Faults();
            f.add("on=uverbs:POST_SEND errno=EIO prob=0.3 seed=1234");
            // events of other rules and commands in between do not move this rule's generator
            f.add("on=uverbs:POST_RECV errno=EIO prob=0.5 seed=9");
            List<Integer> hits = new ArrayList<>();
            for (int i = 1; i <= 200; i++) {
                for (int k = 0; k < run * 3; k++) {
                    failing(f, "POST_RECV", 1, ONE);
                }
                if (!failing(f, "POST_SEND", 1, ONE).isEmpty()) {
                    hits.add(i);
                }
            }
            runs.add(hits);
        }
        assertEquals(runs.get(0), runs.get(1));
        assertTrue(runs.get(0).size() > 30 && runs.get(0).size() < 90, runs.get(0).toString());
        Faults other = new Faults();
        other.add("on=uverbs:POST_SEND errno=EIO prob=0.3 seed=4321");
        List<Integer> hits = new ArrayList<>();
        for (int i = 1; i <= 200; i++) {
            if (!failing(other, "POST_SEND", 1, ONE).isEmpty()) {
                hits.add(i);
            }
        }
        assertTrue(!hits.equals(runs.get(0)), "another seed, other events");
    }

    @Test
    void afterAndForFollowTheTablesClock() throws Exception {
        AtomicLong now = new AtomicLong();
        Faults f = new Faults(now::get);
        f.add("on=uverbs:REG_MR errno=EIO after=1s for=2s");
        assertEquals(List.of(), regMr(f));
        now.set(1_000_000_000L);
        assertEquals(List.of(1), regMr(f));
        now.set(2_999_999_999L);
        assertEquals(List.of(1), regMr(f));
        now.set(3_000_000_000L);
        assertEquals(List.of(), regMr(f));
        assertTrue(f.list().get(0).startsWith("1 hits=2 matched=2 "), f.list().toString());
    }

    private static List<Integer> regMr(Faults f) {
        try {
            f.failCall(Point.UVERBS, "REG_MR", ONE);
            return List.of();
        } catch (Errno e) {
            return List.of(1);
        }
    }

    @Test
    void anEventRuleNeedsItsTargetAndIsRefusedWholeWithout() {
        Faults f = new Faults();
        FaultSyntaxException e = assertThrows(FaultSyntaxException.class, () -> f.add("on=event event=PORT_ERR"));
        assertTrue(e.getMessage().contains("needs dev=NAME"), e.getMessage());
        e = assertThrows(FaultSyntaxException.class, () -> f.add("on=wc dev=mlx5_0 status=RETRY_EXC_ERR"));
        assertTrue(e.getMessage().contains("dev=mlx5_0 is no local HCA"), e.getMessage());
        assertEquals(List.of(), f.list());
    }

    @Test
    void umadCallsByTheirNamesScopedByNodeAndPort() throws Exception {
        Faults f = new Faults();
        f.offer(Point.UMAD, java.util.Set.of("write", "read", "ioctl"));
        FaultSyntaxException e = assertThrows(FaultSyntaxException.class, () -> f.add("on=umad:poll errno=EIO"));
        assertTrue(e.getMessage().contains("ioctl, read, write"), e.getMessage());
        f.add("on=umad:WRITE errno=EIO port=2");
        Facts port1 = Map.of("node", "local", "port", "1")::get;
        Facts port2 = Map.of("node", "local", "port", "2")::get;
        f.failCall(Point.UMAD, "write", port1);
        f.failCall(Point.UMAD, "read", port2);
        Errno x = assertThrows(Errno.class, () -> f.failCall(Point.UMAD, "write", port2));
        assertEquals(Errno.EIO, x.code());
        assertTrue(f.list().get(0).contains("on=umad:write port=2 errno=EIO"), f.list().toString());
    }

    @Test
    void controlAddsListsAndClears() throws Exception {
        Faults f = new Faults();
        FaultControl c = new FaultControl(f);
        assertEquals(List.of("1"), c.run(List.of("add", "on=uverbs:CREATE_QP", "errno=ENOMEM", "nth=1")));
        assertEquals(List.of("2"), c.run(List.of("add", "on=uverbs:POLL_CQ errno=EAGAIN")));
        assertEquals(List.of("1 hits=0 matched=0 on=uverbs:CREATE_QP errno=ENOMEM nth=1",
                "2 hits=0 matched=0 on=uverbs:POLL_CQ errno=EAGAIN"), c.run(List.of("list")));
        FaultSyntaxException e = assertThrows(FaultSyntaxException.class, () -> c.run(List.of("clear", "7")));
        assertTrue(e.getMessage().contains("no fault rule 7"), e.getMessage());
        assertEquals(List.of("cleared rule 1"), c.run(List.of("clear", "1")));
        assertEquals(List.of("cleared 1 rules"), c.run(List.of("clear")));
        assertEquals(List.of(), c.run(List.of("list")));
        assertThrows(FaultSyntaxException.class, () -> c.run(List.of("add")));
        assertThrows(FaultSyntaxException.class, () -> c.run(List.of("remove")));
    }

    @Test
    void aRulesFileIsReadWholeOrNotAtAll() throws Exception {
        java.nio.file.Path file = java.nio.file.Files.createTempFile("faults", ".rules");
        try {
            java.nio.file.Files.writeString(file, "# allocation failures\non=uverbs:REG_MR errno=ENOMEM nth=3  # third\n\n"
                    + "on=uverbs:ALLOC_PD errno=EIO count=1\n");
            assertEquals(List.of("on=uverbs:REG_MR errno=ENOMEM nth=3", "on=uverbs:ALLOC_PD errno=EIO count=1"),
                    FaultControl.readFile(file));
            java.nio.file.Files.writeString(file, "on=uverbs:REG_MR errno=ENOMEM\non=uverbs:REG_MR errno=ENOMEM nth=0\n");
            FaultSyntaxException e = assertThrows(FaultSyntaxException.class, () -> FaultControl.readFile(file));
            assertTrue(e.getMessage().contains("line 2: nth=0"), e.getMessage());
        } finally {
            java.nio.file.Files.delete(file);
        }
    }
}
