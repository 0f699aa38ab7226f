package io.ibemu.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fault rules seen by unmodified programs: a --faults rule that fails ibv_rc_pingpong's QP
 * creation once, a pid-scoped rule that fails one process and not another, pyverbs seeing ENOMEM
 * from its third MR registration only, and malformed rules refused with one line, changing nothing.
 * The --faults rule counts every ibv_rc_pingpong of the instance: its test runs first.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FaultInjectionTest {
    static final Duration TIMEOUT = Duration.ofSeconds(180);
    static Ibemu ib;
    static Path rules;

    @BeforeAll
    static void up() throws IOException {
        rules = Files.createTempFile(Ibemu.tmpDir(), "faults", ".rules");
        Files.writeString(rules, "# the first QP ibv_rc_pingpong creates\n"
                + "on=uverbs:CREATE_QP errno=ENOMEM nth=1 comm=ibv_rc_pingpong\n");
        Path topology = Ibemu.root().resolve("integration-tests/src/test/resources/topology/two-switches.net");
        ib = Ibemu.start("--topology", topology.toString(), "--local", "a", "--local", "b", "--sm", "preset",
                "--faults", rules.toString());
    }

    @AfterAll
    static void down() throws IOException {
        if (ib != null) {
            ib.close();
        }
        Files.deleteIfExists(rules);
    }

    @Test
    @Order(1)
    void createQpFailsOnceUnderTheStartRuleAndThePingpongThenRuns() {
        Result failed = ib.exec(TIMEOUT, "ibv_rc_pingpong", "-d", "ibemu0", "-g", "0", "-p",
                Integer.toString(Loopback.freePort()));
        assertFalse(failed.ok(), failed.toString());
        assertTrue((failed.stdout() + failed.stderr()).contains("Couldn't create QP"), failed.toString());
        assertEquals("1 hits=1 matched=1 on=uverbs:CREATE_QP comm=ibv_rc_pingpong errno=ENOMEM nth=1",
                rule(ctl("fault", "list").assertOk().stdout(), "1"));
        pair("ibv_rc_pingpong");
        assertTrue(rule(ctl("fault", "list").stdout(), "1").startsWith("1 hits=1 matched=3 "),
                ctl("fault", "list").stdout());
        assertTrue(ib.log().contains("fault rule 1 hit uverbs:CREATE_QP dev=ibemu0 pid="), ib.log());
    }

    @Test
    void aRuleScopedToOnePidLeavesAnotherProcessUntouched() {
        int port = Loopback.freePort();
        // the shell arms the rule with its own pid, then becomes the program (exec keeps the pid)
        Result failed = ib.exec(TIMEOUT, "sh", "-c", Ibemu.script() + " ctl --name " + ib.name()
                + " fault add on=uverbs:CREATE_QP errno=EAGAIN pid=$$ && exec ibv_uc_pingpong -d ibemu0 -g 0 -p " + port);
        assertFalse(failed.ok(), failed.toString());
        assertTrue((failed.stdout() + failed.stderr()).contains("Couldn't create QP"), failed.toString());
        String id = failed.stdout().lines().findFirst().orElseThrow().strip();
        pair("ibv_uc_pingpong");
        assertTrue(rule(ctl("fault", "list").stdout(), id).startsWith(id + " hits=1 matched=1 "),
                ctl("fault", "list").stdout());
        ctl("fault", "clear", id).assertOk();
    }

    /** Debian's python3-pyverbs: src/test/python/pyverbs_fault_mr.py. */
    @Test
    void pyverbsSeesEnomemFromTheThirdMrRegistrationOnly() {
        Path script = Ibemu.root().resolve("integration-tests/src/test/python/pyverbs_fault_mr.py");
        Tap.assertPassed(ib.exec(TIMEOUT, "/usr/bin/python3", script.toString(), Ibemu.script().toString(), ib.name(),
                "ibemu1"));
    }

    /** Debian's python3-pyverbs: src/test/python/pyverbs_fault_wc_event.py. */
    @Test
    void injectedCompletionStatusesAndAsyncEventsReachPyverbs() {
        Path script = Ibemu.root().resolve("integration-tests/src/test/python/pyverbs_fault_wc_event.py");
        Tap.assertPassed(ib.exec(TIMEOUT, "/usr/bin/python3", script.toString(), Ibemu.script().toString(), ib.name()));
    }

    @Test
    void ibvRcPingpongReportsTheInjectedCompletionStatus() {
        String id = ctl("fault", "add", "on=wc", "dev=ibemu1", "status=RETRY_EXC_ERR", "count=1").assertOk().stdout().strip();
        try {
            rcPingpongFailsWithRetryExceeded(id);
        } finally {
            ctl("fault", "clear", id);
        }
    }

    @Test
    void ibvRcPingpongCompletesWhenItsFirstPacketIsLost() {
        String id = ctl("fault", "add", "on=packet", "drop", "nth=1").assertOk().stdout().strip();
        try {
            pair("ibv_rc_pingpong", "-g 0 -n 50");
            assertTrue(rule(ctl("fault", "list").stdout(), id).startsWith(id + " hits=1 "), ctl("fault", "list").stdout());
            String log = ib.log();
            assertTrue(log.contains("fault rule " + id + " dropped a packet leaving "), log);
            // 4 KiB at ibv_rc_pingpong's MTU 1024 is four packets: the first lost, the responder NAKs the second
            assertTrue(log.contains("retransmits wr_id 2 from PSN ") && log.contains("after a PSN sequence error"), log);
        } finally {
            ctl("fault", "clear", id);
        }
    }

    @Test
    void aQpWhoseEveryPacketIsLostEndsInRetryExceeded() {
        String id = ctl("fault", "add", "on=packet", "drop").assertOk().stdout().strip();
        try {
            // ibv_rc_pingpong's retry_cnt is 7: the four packets of its first SEND are lost eight times
            rcPingpongFailsWithRetryExceeded(id, 4 * 8);
        } finally {
            ctl("fault", "clear", id);
        }
    }

    /**
     * perftest over cables that lose (the data, between the switches) and corrupt (the ACKs,
     * into b) one packet in a hundred, repeatably: every WR completes, by retransmission; the log
     * names the resends and b's PMA counts the corrupt packets in PortRcvErrors.
     */
    @Test
    void ibWriteBwCompletesOverALossyLink() {
        long before = portRcvErrors();
        String drop = ctl("fault", "add", "on=packet", "node=sw2", "port=8", "drop", "prob=0.01", "seed=24").assertOk()
                .stdout().strip();
        String corrupt = ctl("fault", "add", "on=packet", "node=sw2", "port=1", "corrupt", "prob=0.01", "seed=5")
                .assertOk().stdout().strip();
        try {
            Result r = pair("ib_write_bw", "-n 500 -s 65536");
            assertTrue(r.stdout().contains("#bytes"), r.toString());
            String list = ctl("fault", "list").stdout();
            assertFalse(rule(list, drop).startsWith(drop + " hits=0 "), list);
            assertFalse(rule(list, corrupt).startsWith(corrupt + " hits=0 "), list);
            long hits = Long.parseLong(rule(list, corrupt).split(" ")[1].substring("hits=".length()));
            assertEquals(before + hits, portRcvErrors(), "every corrupt packet counted where it arrived");
            assertTrue(ib.log().contains("retransmits wr_id "), ib.log());
        } finally {
            ctl("fault", "clear", drop);
            ctl("fault", "clear", corrupt);
        }
    }

    /** PortRcvErrors of b's port (ibemu1 port 1), as perfquery reads it from its PMA. */
    private static long portRcvErrors() {
        String out = ib.exec("perfquery", "-C", "ibemu1", "-P", "1").assertOk().stdout();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("PortRcvErrors:\\.*(\\d+)").matcher(out);
        assertTrue(m.find(), out);
        return Long.parseLong(m.group(1));
    }

    /** A receive ending in error: the server reads the injected status, the client Remote Operational Error. */
    @Test
    void ibvRcPingpongServerReadsTheInjectedReceiveStatus() {
        String id = ctl("fault", "add", "on=wc", "side=recv", "dev=ibemu0", "status=LOC_PROT_ERR", "count=1").assertOk()
                .stdout().strip();
        try {
            int port = Loopback.freePort();
            String script = String.join("\n",
                    "out=$(mktemp -d)",
                    "timeout 120 ibv_rc_pingpong -d ibemu0 -g 0 -p " + port + " -n 5 > $out/server 2>&1 &",
                    "srv=$!",
                    Loopback.awaitListening(port, "srv"),
                    "timeout 120 ibv_rc_pingpong -d ibemu1 -g 0 -p " + port + " -n 5 localhost > $out/client 2>&1",
                    "c=$?",
                    "wait $srv; s=$?",
                    "echo \"== client ($c)\"; cat $out/client; echo \"== server ($s)\"; cat $out/server",
                    "rm -rf $out");
            Result r = ib.exec(TIMEOUT, "sh", "-c", script).assertOk();
            assertTrue(r.stdout().contains("== server (1)"), r.toString());
            assertTrue(r.stdout().contains("Failed status local protection error (4) for wr_id 1"), r.toString());
            assertTrue(r.stdout().contains("== client (1)"), r.toString());
            assertTrue(r.stdout().contains("Failed status remote operation error (11) for wr_id 2"), r.toString());
            assertTrue(rule(ctl("fault", "list").stdout(), id).startsWith(id + " hits=1 "), ctl("fault", "list").stdout());
            assertTrue(ib.log().contains("fault rule " + id + " hit wc side=recv dev=ibemu0"), ib.log());
        } finally {
            ctl("fault", "clear", id);
        }
    }

    private static void rcPingpongFailsWithRetryExceeded(String id) {
        rcPingpongFailsWithRetryExceeded(id, 1);
    }

    private static void rcPingpongFailsWithRetryExceeded(String id, int hits) {
        int port = Loopback.freePort();
        // the client's first SEND fails; its server then waits for nothing and is ended once the client is done
        String script = String.join("\n",
                "out=$(mktemp -d)",
                "ibv_rc_pingpong -d ibemu0 -g 0 -p " + port + " -n 5 > $out/server 2>&1 &",
                "srv=$!",
                Loopback.awaitListening(port, "srv"),
                "ibv_rc_pingpong -d ibemu1 -g 0 -p " + port + " -n 5 localhost > $out/client 2>&1",
                "c=$?",
                "kill $srv 2>/dev/null; wait $srv",
                "echo \"== client ($c)\"; cat $out/client",
                "rm -rf $out");
        Result r = ib.exec(TIMEOUT, "sh", "-c", script).assertOk();
        assertTrue(r.stdout().contains("== client (1)"), r.toString());
        assertTrue(r.stdout().contains("Failed status transport retry counter exceeded (12) for wr_id"), r.toString());
        assertTrue(rule(ctl("fault", "list").stdout(), id).startsWith(id + " hits=" + hits + " "),
                ctl("fault", "list").stdout());
    }

    @Test
    void aMalformedRuleGetsOneLineAndChangesNothing() {
        String before = ctl("fault", "list").assertOk().stdout();
        for (String[] bad : new String[][] {
            {"on=uverbs:CREATE_QP", "errno=ENOMEN"}, {"on=uverbs:CREAT_QP", "errno=ENOMEM"},
            {"on=uverbs:REG_MR", "errno=EIO", "prob=2"}, {"on=uverbs:REG_MR", "drop"}, {"nth=1"},
        }) {
            String[] words = new String[bad.length + 2];
            words[0] = "fault";
            words[1] = "add";
            System.arraycopy(bad, 0, words, 2, bad.length);
            Result r = ctl(words);
            assertEquals(1, r.exitCode(), r.toString());
            assertEquals(1, r.stderr().strip().lines().count(), r.toString());
            assertTrue(r.stdout().isBlank(), r.toString());
        }
        assertEquals(before, ctl("fault", "list").stdout());
        assertEquals(1, ctl("fault", "clear", "999").exitCode());
    }

    @Test
    void perfqueryFailsOnceWhenItsUmadWriteFails() {
        String id = ctl("fault", "add", "on=umad:write", "errno=EIO", "nth=1", "comm=perfquery").assertOk().stdout().strip();
        try {
            Result failed = ib.exec("perfquery");
            assertFalse(failed.ok(), failed.toString());
            ib.exec("perfquery").assertOk();
            assertTrue(rule(ctl("fault", "list").stdout(), id).startsWith(id + " hits=1 "), ctl("fault", "list").stdout());
            assertTrue(ib.log().contains("fault rule " + id + " hit umad:write"), ib.log());
        } finally {
            ctl("fault", "clear", id);
        }
    }

    /** Last: the cable comes back by hand, and without an SM its ports stay Init. */
    @Test
    @Order(Integer.MAX_VALUE)
    void aFlappedLinkIsCutAtOnce() {
        String id = ctl("fault", "add", "on=link", "link=a/1", "flap=10m").assertOk().stdout().strip();
        try {
            Result r = ib.exec("ibstat", "ibemu0").assertOk();
            assertTrue(r.stdout().contains("State: Down") && r.stdout().contains("Physical state: Polling"), r.toString());
            assertTrue(ib.log().contains("fault rule " + id + " cut "), ib.log());
            assertTrue(rule(ctl("fault", "list").stdout(), id).startsWith(id + " hits=1 matched=1 on=link link=a/1 "),
                    ctl("fault", "list").stdout());
        } finally {
            ctl("link", "restore", "a", "1");
        }
    }

    @Test
    void aMalformedRulesFileStopsTheStartNamingTheLine() throws IOException {
        Path bad = Files.createTempFile(Ibemu.tmpDir(), "bad", ".rules");
        String name = Ibemu.uniqueName();
        try {
            Files.writeString(bad, "on=uverbs:REG_MR errno=ENOMEM\n# fine so far\non=uverbs:REG_MR errno=ENOMEM every=0\n");
            Result r = Ibemu.launcher("start", "--name", name, "--faults", bad.toString()).timeout(Ibemu.START_TIMEOUT).run();
            assertFalse(r.ok(), r.toString());
            assertTrue(r.stderr().contains("line 3: every=0 is below 1"), r.toString());
        } finally {
            Ibemu.launcher("stop", "--name", name).run();
            Files.deleteIfExists(bad);
        }
    }

    private static Result ctl(String... words) {
        return ib.ctl(words);
    }

    /** The line of rule {@code id} in `fault list`'s output. */
    private static String rule(String list, String id) {
        return list.lines().filter(l -> l.startsWith(id + " ")).findFirst().orElse("(no rule " + id + " in: " + list + ")");
    }

    /** PROGRAM as server on ibemu0 and client on ibemu1; both must succeed. */
    private static void pair(String program) {
        Result r = pair(program, "-g 0 -n 50");
        assertTrue(r.stdout().contains("iters in"), r.toString());
    }

    /** PROGRAM ARGS as server on ibemu0 and client on ibemu1; both must succeed. */
    private static Result pair(String program, String args) {
        int port = Loopback.freePort();
        String script = String.join("\n",
                "set -u",
                "out=$(mktemp -d)",
                program + " -d ibemu0 " + args + " -p " + port + " > $out/server 2>&1 &",
                "srv=$!",
                Loopback.awaitListening(port, "srv"),
                "timeout 120 " + program + " -d ibemu1 " + args + " -p " + port + " localhost > $out/client 2>&1",
                "c=$?",
                "wait $srv; s=$?",
                "echo \"== client ($c)\"; cat $out/client; echo \"== server ($s)\"; cat $out/server",
                "rm -rf $out",
                "[ $c = 0 ] && [ $s = 0 ]");
        return ib.exec(TIMEOUT, "sh", "-c", script).assertOk();
    }
}
