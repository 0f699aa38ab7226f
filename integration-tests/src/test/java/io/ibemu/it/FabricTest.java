package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The fabric seen through unmodified infiniband-diags and OpenSM, on a spine and two leaves
 * with parallel links, dual-port HCAs and free ports (two-level.net; host1 and host2 are the
 * machine's adapters ibemu0 and ibemu1). The tests run in order, as an administrator would:
 * discover the unconfigured subnet, configure it with {@code opensm -o}, check what every
 * tool sees, then run OpenSM as a daemon and ask its SA through the fabric.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FabricTest {
    static final Path TOPOLOGY = Ibemu.root().resolve("integration-tests/src/test/resources/topology/two-level.net");
    /** Every cable of two-level.net, by node description and port. */
    static final Set<String> LINKS = Set.of(
            link("host1 HCA-1", 1, "leaf1 switch", 1), link("host1 HCA-1", 2, "leaf2 switch", 1),
            link("host2 HCA-1", 1, "leaf1 switch", 2), link("host3 HCA-1", 1, "leaf2 switch", 2),
            link("host4 HCA-1", 1, "leaf2 switch", 3), link("leaf1 switch", 7, "spine switch", 1),
            link("leaf1 switch", 8, "spine switch", 2), link("leaf2 switch", 7, "spine switch", 3),
            link("leaf2 switch", 8, "spine switch", 4));
    /** CA ports cabled, and the switches: one LID each once configured. */
    static final int CA_PORTS = 5;
    static final int SWITCHES = 3;

    /** One line of {@code ibnetdiscover -p}: a port, its LID, and its peer if cabled. */
    static final Pattern PORT_LINE = Pattern.compile(
            "^(SW|CA)\\s+(\\d+)\\s+(\\d+)\\s+(0x[0-9a-f]+)\\s+(\\S+ \\S+)\\s+(?:-\\s+(SW|CA)\\s+(\\d+)\\s+(\\d+)\\s+"
                    + "(0x[0-9a-f]+)\\s+\\( '(.*)' - '(.*)' \\)|'(.*)')\\s*$");

    static Ibemu ib;
    static final List<Command.Running> started = new ArrayList<>();

    @BeforeAll
    static void up() {
        ib = Ibemu.startWithTopology(TOPOLOGY, "host1", "host2");
    }

    @AfterAll
    static void down() {
        for (Command.Running r : started) {
            r.stop();
        }
        if (ib != null) {
            ib.close();
        }
    }

    static String link(String a, int pa, String b, int pb) {
        String x = a + "[" + pa + "]";
        String y = b + "[" + pb + "]";
        return x.compareTo(y) < 0 ? x + " <-> " + y : y + " <-> " + x;
    }

    record DiscoveredPort(String type, int lid, int port, String guid, String speed, String peer, String description) {
    }

    static List<DiscoveredPort> discoverPorts() {
        Result r = ib.exec("ibnetdiscover", "-p").assertOk();
        List<DiscoveredPort> ports = new ArrayList<>();
        for (String line : r.lines()) {
            Matcher m = PORT_LINE.matcher(line);
            assertTrue(m.matches(), "unexpected ibnetdiscover -p line: " + line + "\n" + r);
            String peer = m.group(6) == null ? null : link(m.group(10), Integer.parseInt(m.group(3)), m.group(11),
                    Integer.parseInt(m.group(8)));
            String desc = m.group(10) != null ? m.group(10) : m.group(12);
            ports.add(new DiscoveredPort(m.group(1), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)),
                    m.group(4), m.group(5), peer, desc));
        }
        return ports;
    }

    @Test
    @Order(1)
    void ibnetdiscoverListsExactlyTheTopologyBeforeAnySm() {
        List<DiscoveredPort> ports = discoverPorts();
        Set<String> links = new TreeSet<>();
        for (DiscoveredPort p : ports) {
            if (p.peer() != null) {
                links.add(p.peer());
                assertEquals("4x QDR", p.speed(), "every cable trains to 4x QDR: " + p);
            }
        }
        assertEquals(new TreeSet<>(LINKS), links);
        Set<String> guids = new TreeSet<>();
        ports.forEach(p -> guids.add(p.guid()));
        assertEquals(new TreeSet<>(Set.of("0x0011750000000101", "0x0011750000000102", "0x0011750000000201",
                "0x0011750000000301", "0x0011750000000401", "0x0002c90000000500", "0x0002c90000000600",
                "0x0002c90000000700")), guids, "node order in the file gives the GUIDs");
        long freeSwitchPorts = ports.stream().filter(p -> p.type().equals("SW") && p.peer() == null).count();
        assertEquals(4 + 3 + 8, freeSwitchPorts, "the switches' free ports are listed without a peer");
        assertTrue(ports.stream().allMatch(p -> p.lid() == 0), "no LIDs before an SM: " + ports);
    }

    @Test
    @Order(2)
    void opensmOnceConfiguresEveryPortWithUniqueLids() {
        ib.opensm("-o", "-f", Ibemu.tmpDir().resolve(ib.name() + "-opensm-once.log").toString())
                .timeout(Duration.ofSeconds(120)).run().assertOk();
        Map<String, Integer> lids = new TreeMap<>();
        for (DiscoveredPort p : discoverPorts()) {
            if (p.peer() != null || p.type().equals("SW")) {
                lids.put(p.guid(), p.lid());
            }
        }
        assertEquals(CA_PORTS + SWITCHES, lids.size(), lids.toString());
        assertFalse(lids.containsValue(0), "every port has a LID: " + lids);
        assertEquals(lids.size(), new HashSet<>(lids.values()).size(), "LIDs are unique: " + lids);
        for (String dev : List.of("ibemu0", "ibemu1")) {
            String out = ib.exec("ibstat", dev, "1").assertOk().stdout();
            assertTrue(out.contains("State: Active"), out);
            assertTrue(out.contains("Physical state: LinkUp"), out);
            assertTrue(out.contains("SM lid: " + lidOf("0x0011750000000101")), "SM lid is the SM port's: " + out);
        }
        String unconnected = ib.exec("ibstat", "ibemu1", "2").assertOk().stdout();
        assertTrue(unconnected.contains("State: Down") && unconnected.contains("Physical state: Polling"), unconnected);
    }

    static int lidOf(String portGuid) {
        for (DiscoveredPort p : discoverPorts()) {
            if (p.guid().equals(portGuid)) {
                return p.lid();
            }
        }
        throw new AssertionError("no port " + portGuid);
    }

    static Map<String, Integer> caLids() {
        Map<String, Integer> lids = new TreeMap<>();
        for (DiscoveredPort p : discoverPorts()) {
            if (p.type().equals("CA")) {
                lids.put(p.guid(), p.lid());
            }
        }
        return lids;
    }

    static Set<Integer> switchLids() {
        Set<Integer> lids = new TreeSet<>();
        for (DiscoveredPort p : discoverPorts()) {
            if (p.type().equals("SW")) {
                lids.add(p.lid());
            }
        }
        return lids;
    }

    @Test
    @Order(3)
    void ibtracertFollowsTheForwardingTablesBetweenEveryPairOfHcaPorts() {
        Map<String, Integer> cas = caLids();
        assertEquals(CA_PORTS, cas.size(), cas.toString());
        for (var from : cas.entrySet()) {
            for (var to : cas.entrySet()) {
                if (from.equals(to)) {
                    continue;
                }
                Result r = ib.exec("ibtracert", String.valueOf(from.getValue()), String.valueOf(to.getValue()))
                        .assertOk();
                String out = r.stdout();
                assertTrue(out.contains("From ca {" + from.getKey() + "}") || out.contains("From ca"), r.toString());
                assertTrue(out.contains("To ca {" + to.getKey().substring(0, 16) + "00}")
                        || out.contains("lid " + to.getValue() + "-" + to.getValue()), r.toString());
                assertTrue(out.contains("-> switch port"), "the path crosses a switch: " + r);
            }
        }
    }

    @Test
    @Order(4)
    void ibrouteDumpsTheTablesOpensmWrote() {
        for (int lid : switchLids()) {
            String out = ib.exec("ibroute", String.valueOf(lid)).assertOk().stdout();
            assertTrue(out.contains((CA_PORTS + SWITCHES) + " valid lids dumped"), out);
            assertTrue(out.contains(String.format("0x%04x 000 :", lid)), "own LID to port 0: " + out);
        }
    }

    @Test
    @Order(5)
    void iblinkinfoIbswitchesIbhostsSmpqueryByLid() {
        String links = ib.exec("iblinkinfo").assertOk().stdout();
        int active = 0;
        for (String line : links.split("\n")) {
            if (line.contains("==(") && line.contains("\"") && !line.contains("\"\"")) {
                assertTrue(line.contains("4X") && line.contains("Active/  LinkUp"), line);
                active++;
            }
        }
        // the switches show their 13 cabled ports, the CAs their 5
        assertEquals(13 + CA_PORTS, active, links);
        assertEquals(SWITCHES, ib.exec("ibswitches").assertOk().lines().size());
        assertEquals(4, ib.exec("ibhosts").assertOk().lines().size());
        for (int lid : switchLids()) {
            String desc = ib.exec("smpquery", "nodedesc", String.valueOf(lid)).assertOk().stdout();
            assertTrue(desc.contains("switch"), desc);
        }
        int host3 = lidOf("0x0011750000000301");
        String pi = ib.exec("smpquery", "portinfo", String.valueOf(host3), "1").assertOk().stdout();
        Map<String, String> fields = ToolOutput.smpFields(pi);
        assertEquals("Active", fields.get("LinkState"), pi);
        assertEquals(String.valueOf(host3), fields.get("Lid"), pi);
    }

    @Test
    @Order(6)
    void perfqueryLocalAndRemoteCountTheTraffic() {
        Map<String, Long> local = counters(ib.exec("perfquery").assertOk().stdout());
        assertTrue(local.get("PortXmitPkts") > 0 && local.get("PortRcvPkts") > 0, local.toString());
        assertEquals(local.get("PortXmitPkts") * 72, local.get("PortXmitData"),
                "a MAD packet is 288 octets, 72 words: " + local);
        int host3 = lidOf("0x0011750000000301");
        Map<String, Long> before = counters(ib.exec("perfquery", String.valueOf(host3), "1").assertOk().stdout());
        Map<String, Long> after = counters(ib.exec("perfquery", String.valueOf(host3), "1").assertOk().stdout());
        assertTrue(before.get("PortRcvPkts") > 0, before.toString());
        assertTrue(after.get("PortRcvPkts") >= before.get("PortRcvPkts") + 1, "the query itself counts: " + before
                + " then " + after);
        ib.exec("perfquery", "-R", String.valueOf(host3), "1").assertOk();
        Map<String, Long> cleared = counters(ib.exec("perfquery", String.valueOf(host3), "1").assertOk().stdout());
        assertTrue(cleared.get("PortRcvPkts") <= 2, "reset clears the counters: " + cleared);
        ib.exec("ibqueryerrors").assertOk();
    }

    static Map<String, Long> counters(String perfquery) {
        Map<String, Long> m = new TreeMap<>();
        for (String line : perfquery.split("\n")) {
            Matcher x = Pattern.compile("^(\\w+):\\.+(\\d+)$").matcher(line.strip());
            if (x.matches()) {
                m.put(x.group(1), Long.parseLong(x.group(2)));
            }
        }
        return m;
    }

    @Test
    @Order(7)
    void opensmDaemonReachesSubnetUpAndItsSaAnswersThroughTheFabric() throws Exception {
        Path log = Ibemu.tmpDir().resolve(ib.name() + "-opensm.log");
        startSm(log, "0x0011750000000101", 10);
        String sminfo = ib.exec("sminfo").assertOk().stdout();
        assertTrue(sminfo.contains("SMINFO_MASTER"), sminfo);
        String nodes = ib.exec(Duration.ofSeconds(60), "saquery", "-N").assertOk().stdout();
        assertEquals(CA_PORTS + SWITCHES, count(nodes, "NodeRecord dump:"), "one per LID: " + nodes);
        String portInfos = ib.exec(Duration.ofSeconds(60), "saquery", "PIR").assertOk().stdout();
        assertTrue(count(portInfos, "PortInfoRecord dump:") >= CA_PORTS + SWITCHES, portInfos);
        int host1 = lidOf("0x0011750000000101");
        int host4 = lidOf("0x0011750000000401");
        String path = ib.exec(Duration.ofSeconds(60), "saquery", "PR", "--src-to-dst", host1 + ":" + host4)
                .assertOk().stdout();
        assertEquals(1, count(path, "PathRecord dump:"), path);
        assertEquals(String.valueOf(host4), saField(path, "dlid"), path);
        assertEquals(String.valueOf(host1), saField(path, "slid"), path);
    }

    @Test
    @Order(8)
    void ibpingBetweenTheTwoLocalHcas() {
        int host2 = lidOf("0x0011750000000201");
        Command.Running server = ib.execCommand("ibping", "-S", "-C", "ibemu1").start();
        started.add(server);
        for (int i = 0; i < 50 && !ib.exec("ibping", "-C", "ibemu0", "-c", "1", String.valueOf(host2)).stdout()
                .contains(" 0% packet loss"); i++) {
            // the server answers once it has registered its agent
        }
        Result r = ib.exec(Duration.ofSeconds(60), "ibping", "-C", "ibemu0", "-c", "3", String.valueOf(host2));
        r.assertOk();
        assertTrue(r.stdout().contains("3 packets transmitted, 3 received, 0% packet loss"), r.toString());
    }

    @Test
    @Order(9)
    void aSecondOpensmOnTheOtherLocalHcaBecomesStandby() throws Exception {
        Path log = Ibemu.tmpDir().resolve(ib.name() + "-opensm-standby.log");
        launchSm(log, "0x0011750000000201", 1);
        String text = waitFor(log, "Entering STANDBY state", Duration.ofSeconds(60));
        assertTrue(text.contains("Entering STANDBY state"), text);
        assertFalse(text.contains("Entering MASTER state"), text);
    }

    @Test
    @Order(10)
    void aCutLinkIsGoneForOpensmAndIbnetdiscoverUntilRestored() throws Exception {
        String host3 = "host3 HCA-1";
        Ibemu.ibemu("ctl", "--name", ib.name(), "link", "cut", "host3", "1").assertOk();
        assertTrue(discoverPorts().stream().noneMatch(p -> host3.equals(p.description())
                || (p.peer() != null && p.peer().contains(host3))), "host3 is gone from ibnetdiscover");
        assertTrue(eventually(() -> !ib.exec("saquery", "-N").stdout().contains("host3")),
                "OpenSM's next sweep (trap 128 from leaf2) drops host3's NodeRecord");
        Ibemu.ibemu("ctl", "--name", ib.name(), "link", "restore", "host3", "1").assertOk();
        assertTrue(eventually(() -> ib.exec("saquery", "-N").stdout().contains("host3")),
                "OpenSM brings host3 back after the restore");
        assertTrue(eventually(() -> discoverPorts().stream().anyMatch(p -> p.peer() != null
                && p.peer().equals(link(host3, 1, "leaf2 switch", 2)) && p.lid() != 0)),
                "ibnetdiscover sees the cable again, with a LID at host3");
        int lid = lidOf("0x0011750000000301");
        String pi = ib.exec("smpquery", "portinfo", String.valueOf(lid), "1").assertOk().stdout();
        assertEquals("Active", ToolOutput.smpFields(pi).get("LinkState"), pi);
    }

    static boolean eventually(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.sleep(500);
        }
        return false;
    }

    /** A field of a saquery record dump: "\t\tdlid....................4". */
    static String saField(String dump, String name) {
        Matcher m = Pattern.compile("(?m)^\\s*" + name + "\\.+(\\S+)$").matcher(dump);
        return m.find() ? m.group(1) : null;
    }

    static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }

    static void startSm(Path log, String guid, int priority) throws Exception {
        launchSm(log, guid, priority);
        String text = waitFor(log, "SUBNET UP", Duration.ofSeconds(90));
        assertTrue(text.contains("SUBNET UP"), text);
    }

    static void launchSm(Path log, String guid, int priority) throws IOException {
        Files.deleteIfExists(log);
        started.add(ib.opensm("-g", guid, "-p", String.valueOf(priority), "-f", log.toString()).start());
    }

    static String waitFor(Path log, String what, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        String text = "";
        while (System.nanoTime() < deadline) {
            text = Files.exists(log) ? Files.readString(log) : "";
            if (text.contains(what)) {
                return text;
            }
            Thread.sleep(200);
        }
        return text;
    }
}
