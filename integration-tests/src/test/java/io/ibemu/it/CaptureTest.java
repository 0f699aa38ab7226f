package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * {@code ibemu ctl capture} read by Debian's tshark: an OpenSM sweep seen at the SM's port
 * (directed-route SubnGet(NodeInfo) first), an ibv_rc_pingpong streamed live through
 * {@code -w - | tshark -r -} (every SEND with its PSN and its ACK), and pyverbs' RDMA WRITE
 * (its RETH) and a SEND refused for want of a receive (RNR NAKs in the AETH). Two hosts on two
 * switches; the SM runs once, inside the first test, while the capture listens.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CaptureTest {
    static final Duration TIMEOUT = Duration.ofSeconds(180);
    static Ibemu ib;
    static Path dir;

    @BeforeAll
    static void up() throws IOException {
        Path topology = Ibemu.root().resolve("integration-tests/src/test/resources/topology/two-switches.net");
        ib = Ibemu.start("--topology", topology.toString(), "--local", "a", "--local", "b");
        dir = Files.createTempDirectory(Ibemu.tmpDir(), "capture-");
    }

    @AfterAll
    static void down() {
        if (ib != null) {
            ib.close();
        }
    }

    @Test
    @Order(1)
    void anOpenSmSweepDecodesAsDirectedRouteSmps() {
        Path pcap = dir.resolve("sweep.pcap");
        Command.Running capture = startCapture("a/1", pcap);
        ib.opensm("-o", "-f", ib.stateDir().resolve("opensm.log").toString()).timeout(TIMEOUT).run().assertOk();
        endCapture(capture, "a/1");
        List<String[]> rows = tshark(pcap, "_ws.col.Info", "infiniband.lrh.dlid", "infiniband.smpdirected.hopcount");
        assertFalse(rows.isEmpty(), "no packets captured");
        String[] first = rows.get(0);
        // (the SM's first SMP, to its own port, loops back inside the HCA and never crosses the cable)
        assertTrue(first[0].strip().endsWith(" SubnGet(NodeInfo)"), Arrays.toString(first));
        assertEquals("65535", first[1], "a directed-route SMP goes to the permissive LID");
        assertEquals("0x01", first[2], "the first SMP on the cable is for sw1, one hop away");
        long gets = count(rows, "SubnGet(NodeInfo)");
        assertTrue(gets >= 3, "NodeInfo of sw1, sw2 and b: " + gets);
        assertEquals(gets, count(rows, "SubnGetResp(NodeInfo)"), "every SubnGet(NodeInfo) answered");
        assertTrue(rows.stream().anyMatch(r -> r[0].strip().endsWith(" SubnGet(NodeInfo)") && r[2].equals("0x03")),
                "NodeInfo of b three hops away (a, sw1, sw2, b)");
        assertTrue(count(rows, "SubnSet(PortInfo)") >= 4, "the SM sets every port's PortInfo (LIDs, states)");
        assertTrue(tshark(pcap, "frame.number").size() == rows.size());
        assertNothingMalformed(pcap);
    }

    @Test
    @Order(2)
    void anRcPingpongStreamsLiveIntoTshark() {
        int port = 18515 + (int) (System.nanoTime() % 1000);
        Path info = dir.resolve("pingpong.txt");
        // 5 round trips of 64 bytes: 10 SENDs and 10 ACKs cross a's port; tshark reads the live stream
        Command.Running capture = Command.of("sh", "-c", Ibemu.script() + " ctl --name " + ib.name()
                        + " capture a/1 -c 20 -w - | tshark -r - -T fields -e _ws.col.Info -e infiniband.bth.psn"
                        + " -e infiniband.bth.destqp > " + info)
                .env(Ibemu.launcherEnv()).cwd(Ibemu.root()).timeout(TIMEOUT).start();
        awaitTapped("a/1");
        Result r = ib.exec(TIMEOUT, "sh", "-c", String.join("\n",
                "ibv_rc_pingpong -d ibemu1 -p " + port + " -n 5 -s 64 > /tmp/pp-server 2>&1 &",
                "srv=$!",
                "sleep 1",
                "ibv_rc_pingpong -d ibemu0 -p " + port + " -n 5 -s 64 localhost; c=$?",
                "wait $srv; s=$?",
                "cat /tmp/pp-server; rm -f /tmp/pp-server",
                "[ $c = 0 ] && [ $s = 0 ]"));
        r.assertOk();
        capture.await().assertOk();
        Matcher local = Pattern.compile("local address:\\s+LID \\S+, QPN \\S+, PSN (0x[0-9a-f]+)").matcher(r.stdout());
        assertTrue(local.find(), r.toString());
        int clientPsn = Integer.decode(local.group(1));
        List<String[]> rows = read(info);
        assertEquals(20, rows.size(), rows.stream().map(Arrays::toString).toList().toString());
        assertEquals(10, count(rows, "RC Send Only"), "SENDs");
        assertEquals(10, count(rows, "RC Acknowledge"), "ACKs");
        // the client's SENDs (first, third, ...) carry its PSNs one after the other; each ACK names its SEND's
        for (int i = 0; i < 5; i++) {
            String[] send = rows.get(4 * i);
            String[] ack = rows.get(4 * i + 1);
            assertTrue(send[0].startsWith("RC Send Only"), Arrays.toString(send));
            assertEquals(clientPsn + i, Integer.parseInt(send[1]), "PSN of SEND " + i);
            assertEquals(send[1], ack[1], "the ACK's PSN is its SEND's");
        }
    }

    @Test
    @Order(3)
    void anRdmaWriteShowsItsRethAnRnrNakItsAethAndAReadItsResponses() {
        Path pcap = dir.resolve("rnr.pcap");
        Command.Running capture = startCapture("b/1", pcap);
        Path script = Ibemu.root().resolve("integration-tests/src/test/python/pyverbs_capture_traffic.py");
        Result r = ib.exec(TIMEOUT, "/usr/bin/python3", script.toString(), "ibemu0", "ibemu1");
        Tap.assertPassed(r);
        endCapture(capture, "b/1");
        Matcher m = Pattern.compile("# write rkey (0x[0-9a-f]+) va (0x[0-9a-f]+)").matcher(r.stdout());
        assertTrue(m.find(), r.toString());
        List<String[]> rows = tshark(pcap, "_ws.col.Info", "infiniband.bth.psn", "infiniband.reth.r_key",
                "infiniband.reth.va", "infiniband.reth.dmalen", "infiniband.aeth.syndrome");
        String[] write = rows.stream().filter(x -> x[0].startsWith("RC RDMA Write Only")).findFirst()
                .orElseThrow(() -> new AssertionError("no RDMA WRITE in " + rows.size() + " packets"));
        assertEquals(0x123456, Integer.parseInt(write[1]), "the requester's SQ PSN");
        assertEquals(Long.decode(m.group(1)), Long.decode(write[2]), "RETH R_Key");
        assertEquals(Long.decode(m.group(2)), Long.decode(write[3]), "RETH VA");
        assertEquals("64", write[4], "RETH DMA length");
        // AETH syndrome 001 TTTTT: an RNR NAK with the responder's min_rnr_timer (14), for the SEND's PSN
        List<String[]> rnr = rows.stream().filter(x -> x[5].equals(Integer.toString(0x20 | 14))).toList();
        assertFalse(rnr.isEmpty(), "no RNR NAK among " + rows.stream().map(Arrays::toString).toList());
        rnr.forEach(x -> assertEquals(Integer.toString(0x123457), x[1], "the NAKed SEND's PSN"));
        long sends = count(rows, "RC Send Only");
        assertEquals(rnr.size() + 1, sends, "every RNR NAK made the SEND go again, once more to be taken");
        assertTrue(rows.stream().anyMatch(x -> x[0].startsWith("RC Acknowledge") && x[1].equals("1193047")
                && x[5].equals("31")), "the SEND acknowledged at last (syndrome ACK, no credits)");
        // the READ: one request with its RETH, then eight responses (FIRST, 6 MIDDLE, LAST) on its PSNs
        String[] read = rows.stream().filter(x -> x[0].startsWith("RC RDMA Read Request")).findFirst()
                .orElseThrow(() -> new AssertionError("no RDMA READ request"));
        assertEquals("8192", read[4], "READ RETH DMA length");
        int readPsn = Integer.parseInt(read[1]);
        assertEquals(0x123458, readPsn, "after the WRITE's and the SEND's PSNs");
        List<String[]> responses = rows.stream().filter(x -> x[0].startsWith("RC RDMA Read Response")).toList();
        assertEquals(8, responses.size(), "8 KiB at a 1024-byte path MTU");
        for (int i = 0; i < 8; i++) {
            assertEquals(readPsn + i, Integer.parseInt(responses.get(i)[1]), "response " + i + "'s PSN");
        }
        assertTrue(responses.get(0)[0].startsWith("RC RDMA Read Response First")
                && responses.get(7)[0].startsWith("RC RDMA Read Response Last"), responses.get(0)[0]);
        assertTrue(rows.stream().anyMatch(x -> x[0].startsWith("RC Fetch Add") && x[1].equals(Integer.toString(readPsn + 8))),
                "the fetch-and-add after the READ's eight PSNs");
        assertTrue(rows.stream().anyMatch(x -> x[0].startsWith("RC Atomic Acknowledge")), "its atomic ACK");
        assertNothingMalformed(pcap);
    }

    @Test
    @Order(4)
    void aPacketADropRuleLosesIsSeenLeavingButNeverArrives() {
        // lost on the cable a -- sw1: a's capture sees the SMPs go, sw1's sees none come
        Ibemu.ibemu("ctl", "--name", ib.name(), "drop", "a", "1", "100%", "NodeInfo").assertOk();
        Path sent = dir.resolve("drop-a.pcap");
        Path heard = dir.resolve("drop-sw1.pcap");
        Command.Running a = startCapture("a/1", sent);
        Command.Running sw1 = startCapture("sw1/1", heard);
        Result r = ib.exec(TIMEOUT, "smpquery", "-D", "nodeinfo", "0,1");
        assertTrue(r.exitCode() != 0, "the query is lost: " + r);
        endCapture(a, "a/1");
        endCapture(sw1, "sw1/1");
        Ibemu.ibemu("ctl", "--name", ib.name(), "drop", "a", "1", "0").assertOk();
        long left = count(tshark(sent, "_ws.col.Info"), "SubnGet(NodeInfo)");
        assertTrue(left >= 1, "the SMP and its retries left a");
        assertEquals(0, count(tshark(heard, "_ws.col.Info"), "SubnGet(NodeInfo)"), "none reached sw1");
        assertEquals(0, count(tshark(sent, "_ws.col.Info"), "SubnGetResp(NodeInfo)"), "so none was answered");
    }

    @Test
    @Order(5)
    void aBadTargetIsRefusedAndLeavesNoFile() {
        Path pcap = dir.resolve("none.pcap");
        Result r = Ibemu.ibemu("ctl", "--name", ib.name(), "capture", "nosuch/1", "-w", pcap.toString());
        r.assertExit(1);
        assertTrue(r.stderr().contains("no node 'nosuch'"), r.stderr());
        assertFalse(Files.exists(pcap));
        r = Ibemu.ibemu("ctl", "--name", ib.name(), "capture", "sw1/0", "-w", pcap.toString());
        r.assertExit(1);
        assertTrue(r.stderr().contains("management port"), r.stderr());
        r = Ibemu.ibemu("ctl", "--name", ib.name(), "capture", "a/1");
        r.assertExit(2);
        assertTrue(r.stderr().contains("-w FILE"), r.stderr());
    }

    // ---- helpers ----

    /** {@code ctl capture PORT -w FILE} in the background, returned once the port is tapped. */
    private static Command.Running startCapture(String port, Path pcap) {
        Command.Running c = Ibemu.launcher("ctl", "--name", ib.name(), "capture", port, "-w", pcap.toString())
                .timeout(TIMEOUT).start();
        awaitTapped(port);
        return c;
    }

    /** Waits until dump shows the port as captured: from then on every packet is recorded. */
    private static void awaitTapped(String port) {
        awaitDump(port, true);
    }

    /**
     * Ends a capture by ending its client, as Ctrl-C does (ctl flushed each packet as it came),
     * and waits until the daemon has noticed and freed the port (at its next idle line).
     */
    private static void endCapture(Command.Running c, String port) {
        c.signal("TERM");
        c.await();
        awaitDump(port, false);
    }

    private static void awaitDump(String port, boolean captured) {
        String node = port.substring(0, port.indexOf('/'));
        String mark = "[" + port.substring(port.indexOf('/') + 1) + "] ";
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            Result dump = Ibemu.ibemu("ctl", "--name", ib.name(), "dump", node).assertOk();
            if (dump.lines().stream().anyMatch(l -> l.strip().startsWith(mark) && l.contains(" captured")) == captured) {
                return;
            }
            pause();
        }
        throw new AssertionError("the capture of " + port + (captured ? " never started" : " never ended"));
    }

    private static List<String[]> tshark(Path pcap, String... fields) {
        List<String> argv = new ArrayList<>(List.of("tshark", "-r", pcap.toString(), "-T", "fields"));
        for (String f : fields) {
            argv.add("-e");
            argv.add(f);
        }
        Result r = Command.of(argv).timeout(TIMEOUT).run();
        r.assertOk();
        return rows(r.stdout());
    }

    private static void assertNothingMalformed(Path pcap) {
        Result r = Command.of("tshark", "-r", pcap.toString(), "-Y", "_ws.malformed || _ws.expert.severity >= error")
                .timeout(TIMEOUT).run();
        r.assertOk();
        assertEquals("", r.stdout().strip(), "packets tshark finds malformed");
    }

    private static List<String[]> read(Path file) {
        try {
            return rows(Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String[]> rows(String text) {
        return text.lines().filter(l -> !l.isBlank()).map(l -> l.split("\t", -1)).toList();
    }

    private static long count(List<String[]> rows, String info) {
        // the Info column: "RC Send Only QP=0x000002 ", "UD Send Only QP=0x000000 SubnGet(NodeInfo)"
        return rows.stream().filter(r -> r[0].strip().startsWith(info + " ") || r[0].strip().endsWith(" " + info))
                .count();
    }

    private static void pause() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
