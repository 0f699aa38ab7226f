package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ibemu.emulator.topology.LinkSpec;
import io.ibemu.emulator.topology.NodeSpec;
import io.ibemu.emulator.topology.NodeType;
import io.ibemu.emulator.topology.Topology;
import io.ibemu.emulator.topology.TopologyParser;
import io.ibemu.emulator.topology.TopologyWriter;
import io.ibemu.emulator.topology.generate.FatTree;
import java.io.StringReader;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * {@code --sm preset} on a two-level fat tree (12 hosts, 3 leaves, 2 spines, parallel
 * leaf-spine cables): with no SM running, ibnetdiscover sees every LID, ibtracert finds a
 * min-hop way between every pair, ibroute's tables send every LID one hop nearer, perfquery
 * answers by LID, verbs run between two local HCAs on different leaves; then a real
 * {@code opensm -o} sweeps the subnet without an error and changes no LID.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PresetSubnetTest {
    static final Duration TIMEOUT = Duration.ofSeconds(300);
    static Ibemu ib;
    /** The subnet as ibnetdiscover printed it (ids S-/H-GUID, LIDs in baseLid). */
    static Topology discovered;
    static Map<Integer, String> nodeOfLid = new TreeMap<>();

    @BeforeAll
    static void up() throws Exception {
        Path file = Ibemu.tmpDir().resolve("preset-fat-tree.net");
        try (Writer w = Files.newBufferedWriter(file)) {
            TopologyWriter.net(FatTree.of(2, 8, 12).build(), w);
        }
        ib = Ibemu.start("--topology", file.toString(), "--local", "host0001", "--local", "host0012",
                "--sm", "preset");
        String out = ib.exec("ibnetdiscover").assertOk().stdout();
        discovered = TopologyParser.parse("ibnetdiscover", new StringReader(out));
        for (NodeSpec n : discovered.nodes()) {
            assertTrue(n.baseLid() > 0, n + " has a LID: " + out);
            assertEquals(null, nodeOfLid.put(n.baseLid(), n.id()), "LID " + n.baseLid() + " twice: " + out);
        }
    }

    @AfterAll
    static void down() {
        if (ib != null) {
            ib.close();
        }
    }

    /** Fewest cables from node {@code from} to every node (a CA relays nothing). */
    static Map<String, Integer> hops(String from) {
        Map<String, List<String>> adj = new HashMap<>();
        for (LinkSpec l : discovered.links()) {
            adj.computeIfAbsent(l.nodeA(), k -> new java.util.ArrayList<>()).add(l.nodeB());
            adj.computeIfAbsent(l.nodeB(), k -> new java.util.ArrayList<>()).add(l.nodeA());
        }
        Map<String, Integer> dist = new HashMap<>(Map.of(from, 0));
        ArrayDeque<String> queue = new ArrayDeque<>(List.of(from));
        while (!queue.isEmpty()) {
            String n = queue.poll();
            boolean relays = n.equals(from) || discovered.node(n).orElseThrow().type() == NodeType.SWITCH;
            for (String m : relays ? adj.getOrDefault(n, List.of()) : List.<String>of()) {
                if (dist.putIfAbsent(m, dist.get(n) + 1) == null) {
                    queue.add(m);
                }
            }
        }
        return dist;
    }

    /** The node at the other end of {@code node}'s port {@code port}. */
    static String peer(String node, int port) {
        for (LinkSpec l : discovered.links()) {
            if (l.nodeA().equals(node) && l.portA() == port) {
                return l.nodeB();
            }
            if (l.nodeB().equals(node) && l.portB() == port) {
                return l.nodeA();
            }
        }
        return null;
    }

    @Test
    @Order(1)
    void everyPortIsActiveWithTheSmLidOfTheFirstLocalPort() {
        assertEquals(17, discovered.nodes().size(), "12 hosts, 5 switches");
        String first = ib.exec("ibstat", "ibemu0", "1").assertOk().stdout();
        String second = ib.exec("ibstat", "ibemu1", "1").assertOk().stdout();
        Matcher lid = Pattern.compile("Base lid: (\\d+)").matcher(first);
        assertTrue(lid.find(), first);
        for (String out : List.of(first, second)) {
            assertTrue(out.contains("State: Active"), out);
            assertTrue(out.contains("Physical state: LinkUp"), out);
            assertTrue(out.contains("SM lid: " + lid.group(1)), out);
        }
        assertEquals("1", lid.group(1), "the SM port takes LID 1");
        assertFalse(ib.exec("sminfo").ok(), "no SM answers SMInfo");
    }

    @Test
    @Order(2)
    void ibtracertFindsAMinHopWayBetweenEveryPair() {
        StringBuilder script = new StringBuilder();
        for (int a : nodeOfLid.keySet()) {
            for (int b : nodeOfLid.keySet()) {
                if (a != b) {
                    script.append("echo \"== ").append(a).append(' ').append(b).append("\"; ibtracert ")
                            .append(a).append(' ').append(b).append(" 2>&1; echo \"rc $?\"\n");
                }
            }
        }
        String out = ib.exec(TIMEOUT, "sh", "-c", script.toString()).assertOk().stdout();
        String[] runs = out.split("== ");
        int checked = 0;
        for (String run : runs) {
            if (run.isBlank()) {
                continue;
            }
            String[] words = run.split("\\s+", 3);
            int a = Integer.parseInt(words[0]);
            int b = Integer.parseInt(words[1]);
            assertTrue(run.contains("rc 0") && run.contains("\nTo "), "ibtracert " + a + " " + b + ": " + run);
            long cables = run.lines().filter(l -> l.startsWith("[")).count();
            int fewest = hops(nodeOfLid.get(a)).get(nodeOfLid.get(b));
            assertEquals(fewest, cables, "ibtracert " + a + " " + b + " takes the fewest cables: " + run);
            checked++;
        }
        assertEquals(nodeOfLid.size() * (nodeOfLid.size() - 1), checked);
    }

    @Test
    @Order(3)
    void ibrouteShowsEveryLidSentOneHopNearer() {
        Pattern entry = Pattern.compile("^0x([0-9a-f]{4}) (\\d{3}) :", Pattern.MULTILINE);
        int switches = 0;
        for (Map.Entry<Integer, String> sw : nodeOfLid.entrySet()) {
            if (discovered.node(sw.getValue()).orElseThrow().type() != NodeType.SWITCH) {
                continue;
            }
            switches++;
            String out = ib.exec("ibroute", String.valueOf(sw.getKey())).assertOk().stdout();
            Map<Integer, Integer> table = new TreeMap<>();
            Matcher m = entry.matcher(out);
            while (m.find()) {
                table.put(Integer.parseInt(m.group(1), 16), Integer.parseInt(m.group(2)));
            }
            assertEquals(nodeOfLid.keySet(), table.keySet(), "every LID, no other: " + out);
            assertTrue(out.contains(nodeOfLid.size() + " valid lids dumped"), out);
            for (Map.Entry<Integer, Integer> e : table.entrySet()) {
                String dest = nodeOfLid.get(e.getKey());
                if (e.getValue() == 0) {
                    assertEquals(sw.getValue(), dest, "port 0 is the switch's own LID: " + out);
                    continue;
                }
                String next = peer(sw.getValue(), e.getValue());
                assertNotNull(next, "LID " + e.getKey() + " out of a port without a cable: " + out);
                assertEquals(hops(sw.getValue()).get(dest) - 1, hops(next).get(dest),
                        "LID " + e.getKey() + " leaves " + sw.getValue() + " one hop nearer: " + out);
            }
        }
        assertEquals(5, switches);
    }

    @Test
    @Order(4)
    void perfqueryAnswersByLid() {
        StringBuilder script = new StringBuilder();
        for (int lid : nodeOfLid.keySet()) {
            script.append("perfquery ").append(lid).append(" 1 || echo \"failed ").append(lid).append("\"\n");
        }
        String out = ib.exec(TIMEOUT, "sh", "-c", script.toString()).assertOk().stdout();
        assertFalse(out.contains("failed"), out);
        for (int lid : nodeOfLid.keySet()) {
            assertTrue(out.contains("# Port counters: Lid " + lid + " port 1"), out);
        }
    }

    @Test
    @Order(5)
    void rcPingpongRunsBetweenTwoLocalHcasOnDifferentLeaves() {
        int port = Loopback.freePort();
        String script = String.join("\n",
                "out=$(mktemp -d)",
                "ibv_rc_pingpong -d ibemu0 -g 0 -n 200 -p " + port + " > $out/server 2>&1 &",
                "srv=$!",
                Loopback.awaitListening(port, "srv"),
                "timeout 120 ibv_rc_pingpong -d ibemu1 -g 0 -n 200 -p " + port + " localhost > $out/client 2>&1",
                "c=$?",
                "wait $srv; s=$?",
                "cat $out/client $out/server; rm -rf $out",
                "[ $c = 0 ] && [ $s = 0 ]");
        Result r = ib.exec(TIMEOUT, "sh", "-c", script);
        r.assertOk();
        assertTrue(r.stdout().contains("200 iters in"), r.toString());
    }

    @Test
    @Order(6)
    void ibemuSmPresetInTheEnvironmentDoesTheSameForRun() throws Exception {
        Path file = Ibemu.tmpDir().resolve("preset-fat-tree.net");
        Result r = Ibemu.launcher("run", "--topology", file.toString(), "--local", "host0005", "--", "ibstat",
                "ibemu0", "1").env("IBEMU_SM", "preset").timeout(TIMEOUT).run();
        r.assertOk();
        assertTrue(r.stdout().contains("State: Active") && r.stdout().contains("Base lid: 1")
                && r.stdout().contains("SM lid: 1"), r.toString());
    }

    @Test
    @Order(7)
    void aLaterOpensmAgreesWithThePresetSubnet() throws Exception {
        Path log = Ibemu.tmpDir().resolve(ib.name() + "-opensm-after-preset.log");
        ib.opensm("-o", "-f", log.toString()).timeout(Duration.ofSeconds(180)).run().assertOk();
        String text = Files.readString(log);
        assertFalse(text.contains(" ERR "), "OpenSM logged errors:\n" + text);
        assertTrue(text.contains("SUBNET UP"), text);
        Topology after = TopologyParser.parse("after", new StringReader(ib.exec("ibnetdiscover").assertOk().stdout()));
        Map<String, Integer> lidsAfter = new HashMap<>();
        after.nodes().forEach(n -> lidsAfter.put(n.id(), n.baseLid()));
        Set<String> changed = new HashSet<>();
        for (NodeSpec n : discovered.nodes()) {
            if (!Integer.valueOf(n.baseLid()).equals(lidsAfter.get(n.id()))) {
                changed.add(n.id() + " " + n.baseLid() + " -> " + lidsAfter.get(n.id()));
            }
        }
        assertEquals(Set.of(), changed, "OpenSM keeps every LID");
        Files.deleteIfExists(log);
    }
}
