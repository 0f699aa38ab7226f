package io.ibemu.emulator.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ibemu.emulator.fabric.Fabric;
import io.ibemu.emulator.fabric.Node;
import io.ibemu.emulator.fabric.PhysPortState;
import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.fabric.PortState;
import io.ibemu.emulator.mad.SmAttribute;
import io.ibemu.emulator.topology.DefaultFabric;
import io.ibemu.emulator.topology.LinkSpeed;
import io.ibemu.emulator.topology.NodeType;
import io.ibemu.emulator.topology.Topology;
import io.ibemu.emulator.topology.TopologyParser;
import java.io.StringReader;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ConsoleTest {
    private final Fabric fabric = Fabric.of(DefaultFabric.topology());
    private final Node local = fabric.node("local").orElseThrow();
    private final Node sw = fabric.node("switch").orElseThrow();
    private final Console console = new Console(fabric, Set.of(local));

    private List<String> run(String line) throws ControlException {
        return console.execute(RequestLine.split(line));
    }

    private String refused(String line) {
        return assertThrows(ControlException.class, () -> run(line), line).getMessage();
    }

    @Test
    void requestWordsSurviveQuoting() throws ControlException {
        List<String> words = List.of("node", "add", "Hca 1 \"x\" # \"d\\e\"", "", "a\nb", "plain");
        assertEquals(words, RequestLine.split(RequestLine.join(words)));
        assertEquals(List.of(), RequestLine.split("   # a comment"));
        assertThrows(ControlException.class, () -> RequestLine.split("link \"cut"));
    }

    @Test
    void linkCutAndRestoreByIdOrGuid() throws ControlException {
        List<String> out = run("link cut local 1");
        assertEquals(List.of("\"local\"[1] -- \"switch\"[1] cut: Down/Polling, Down/Polling"), out);
        assertEquals(PortState.DOWN, sw.port(1).state());
        run(String.format("link restore 0x%016x 1", sw.guid()));
        assertEquals(PhysPortState.LINK_UP, local.port(1).physicalState());
        assertTrue(refused("link restore local 1").contains("not cut"));
        assertTrue(refused("link cut local 2").contains("no cable"));
        assertTrue(refused("link cut switch 0").contains("management port"));
    }

    @Test
    void nodeCutAndRestoreEveryLink() throws ControlException {
        assertEquals(3, run("node cut switch").size());
        for (int p = 1; p <= 3; p++) {
            assertTrue(sw.port(p).isCut());
        }
        assertEquals(List.of("\"switch\" has no plugged-in cable: nothing to do"), run("node cut switch"));
        assertEquals(3, run("node restore switch").size());
        assertEquals(PortState.INIT, fabric.node("node2").orElseThrow().port(1).state());
    }

    @Test
    void wrongInputSaysWhatToChange() {
        assertTrue(refused("link cut nobody 1").contains("no node 'nobody'"));
        assertTrue(refused("link cut local 3").contains("has ports 1..2, not 3"));
        assertTrue(refused("link cut local x").contains("not a port number"));
        assertTrue(refused("link cut local").contains("missing a PORT"));
        assertTrue(refused("link cut local 1 extra").contains("unexpected 'extra'"));
        assertTrue(refused("frobnicate").contains("unknown command"));
        assertTrue(refused("drop switch 1 150%").contains("not in 0..1"));
        assertTrue(refused("drop switch 1 25").contains("write 25%"));
        assertTrue(refused("drop switch 1 0.5 NoSuchAttribute").contains("PortInfo"));
        assertTrue(refused("counter local 1 Bogus 1").contains("SymbolErrorCounter"));
        assertTrue(refused("counter local 1 SymbolErrorCounter 65536").contains("0..65535"));
        assertTrue(refused("counter node2 0 SymbolErrorCounter 1").contains("has ports 1..1, not 0"));
        assertTrue(refused("guid local zz").contains("not a GUID"));
        assertTrue(refused("lid switch 1 5").contains("port 0"));
        assertTrue(refused("lid local 1 49152").contains("out of range"));
    }

    @Test
    void dropCounterGuidLid() throws ControlException {
        run("drop switch 1 25% PortInfo");
        assertEquals(0.25, sw.port(1).dropRate());
        assertEquals(SmAttribute.PORT_INFO, sw.port(1).dropAttribute());
        run("drop switch 1 0");
        assertEquals(0, sw.port(1).dropRate());
        run("drop switch 1 0.5 0x11");
        assertEquals(SmAttribute.NODE_INFO, sw.port(1).dropAttribute());

        run("counter local 1 symbolerrorcounter 12");
        assertEquals(12, local.port(1).counters().symbolErrorCounter());
        run("counter switch 3 PortXmitData 0x100");
        assertEquals(256, sw.port(3).counters().portXmitData());
        run("counter switch 0 SymbolErrorCounter 7");
        assertEquals(7, sw.port(0).counters().symbolErrorCounter(), "the PMA counts the management port too");

        run("guid local 0x0011750000009900");
        assertEquals(0x0011750000009900L, local.guid());
        run("guid local 1 11750000009901");
        assertEquals(0x0011750000009901L, local.port(1).guid());
        assertTrue(refused("guid node1 0x0011750000009900").contains("taken by \"local\""));

        run("lid local 1 5");
        assertEquals(5, local.port(1).lid());
        run("lid switch 0 1 0");
        assertEquals(1, sw.port(0).lid());
    }

    @Test
    void nodeAddFromTopologyLinesAndRemove() throws ControlException {
        List<String> out = run(RequestLine.join(List.of("node", "add", "Hca 1 \"node3\" # \"node3 HCA-1\"",
                "[1] \"switch\"[4] 4xEDR")));
        assertEquals("added Hca \"node3\" guid 0x0011750000000500", out.get(0), "next in the parser's numbering");
        Node n3 = fabric.node("node3").orElseThrow();
        assertEquals("node3 HCA-1", n3.description());
        assertEquals(0x0011750000000501L, n3.port(1).guid());
        assertEquals(LinkSpeed.EDR, n3.port(1).activeSpeed());
        assertEquals(PortState.INIT, sw.port(4).state());

        String partlyWrong = RequestLine.join(List.of("node", "add", "switchguid=0x0002c90000abcd00",
                "Switch 4 \"leaf\"", "[1] \"switch\"[5]\n[2] \"nodeX\"[1]"));
        assertTrue(refused(partlyWrong).contains("no node \"nodeX\""));
        assertTrue(fabric.node("leaf").isEmpty(), "refused as a whole");
        assertEquals(PhysPortState.POLLING, sw.port(5).physicalState());
        run(RequestLine.join(List.of("node", "add", "switchguid=0x0002c90000abcd00", "Switch 4 \"leaf\"",
                "[1] \"switch\"[5]")));
        Node leaf = fabric.node("0x0002c90000abcd00").orElseThrow();
        assertEquals(NodeType.SWITCH, leaf.type());
        assertEquals(PhysPortState.LINK_UP, leaf.port(1).physicalState());

        assertTrue(refused("node add \"Hca 1 \\\"node1\\\"\"").contains("already in the fabric"));
        assertTrue(refused("node add \"Hca 1 \\\"n4\\\"\" \"[1] \\\"switch\\\"[1]\"").contains("already has a cable"));
        assertTrue(refused("node add \"Frob 1 \\\"n4\\\"\"").contains("expected a node line"));

        assertTrue(refused("node remove local").contains("local HCA"));
        run("node remove node3");
        assertTrue(fabric.node("node3").isEmpty());
        assertEquals(PhysPortState.POLLING, sw.port(4).physicalState());
        assertTrue(sw.port(4).cableEnd().isEmpty());
    }

    @Test
    void dumpListsEveryNodeAndATopologyThatReadsBack() throws Exception {
        run("link cut node2 1");
        List<String> out = run("dump");
        String text = String.join("\n", out);
        assertTrue(text.contains("Hca 2 \"local\" guid 0x0011750000000100 \"ibemu-local HCA-1\" local"), text);
        assertTrue(text.contains("[1] guid 0x0011750000000101 lid 0 lmc 0 sm_lid 0 Init/LinkUp 4xQDR -- \"switch\"[1]"),
                text);
        assertTrue(text.contains("[3] Down/Polling -- \"node2\"[1] cut"), text);
        assertTrue(text.contains("Switch 8 \"switch\""), text);
        int start = out.indexOf("#");
        Topology back = TopologyParser.parse("dump", new StringReader(String.join("\n", out.subList(start,
                out.size()))));
        assertEquals(4, back.nodes().size());
        assertEquals(2, back.links().size());
        assertEquals(List.of("Hca 1 \"node1\" guid 0x0011750000000200 \"ibemu-node1 HCA-1\"",
                "  [1] guid 0x0011750000000201 lid 0 lmc 0 sm_lid 0 Init/LinkUp 4xQDR -- \"switch\"[2]",
                "# 4 nodes"), run("dump node1"));
        assertEquals(TopologyParser.parse("t", new StringReader(String.join("\n", run("topology")))).nodes().size(),
                4);
        assertTrue(run("help").get(0).startsWith("Commands"));
    }

    @Test
    void counterNamesArePerfqueryFieldNames() {
        for (Port.Counter c : Port.Counter.values()) {
            assertTrue(c.perfName().matches("[A-Z][A-Za-z0-9]+"), c.perfName());
        }
    }

    @Test
    void countersListEveryCabledPortsNonZeroCountersAndDropsTheRules() throws ControlException {
        run("counter local 1 SymbolErrorCounter 7");
        List<String> lines = run("counters local");
        assertEquals(List.of("local\t1\tSymbolErrorCounter=7"), lines);
        assertEquals(3, run("counters switch").size(), "the switch's three cabled ports");
        assertEquals(List.of(), run("drops"));
        run("drop switch 2 25% PortInfo");
        assertEquals(List.of("switch[2] drops 25% of MADs with attribute 0x0015"), run("drops"));
    }

    @Test
    void drawGivesDotAndADigestThatFollowsTheFabric() throws ControlException {
        List<String> dot = run("draw");
        assertTrue(dot.get(0).startsWith("graph fabric {"), dot.get(0));
        assertTrue(dot.stream().anyMatch(l -> l.contains("\"local\" [id=\"node:local\"") && l.contains("(local)")),
                String.join("\n", dot));
        String before = run("draw --digest").get(0);
        assertEquals(before, run("draw --digest").get(0), "nothing changed");
        run("link cut local 1");
        assertTrue(!before.equals(run("draw --digest").get(0)), "a cut changes the drawing");
        assertTrue(refused("draw --all").contains("--digest"));
    }

    @Test
    void aCaptureNamesAPortWithACableAndIsOnePerPort() throws ControlException {
        assertTrue(refused("capture local/1").contains("capture streams packets"));
        assertTrue(assertThrows(ControlException.class, () -> console.capture(List.of("local"))).getMessage()
                .contains("NODE/PORT"));
        assertTrue(assertThrows(ControlException.class, () -> console.capture(List.of("switch/0"))).getMessage()
                .contains("management port"));
        assertTrue(assertThrows(ControlException.class, () -> console.capture(List.of("local/1", "-x"))).getMessage()
                .contains("-c COUNT"));
        try (var c = console.capture(List.of("local/1", "-c", "3"))) {
            assertTrue(run("dump local").stream().anyMatch(l -> l.contains("[1]") && l.contains(" captured")));
            assertTrue(assertThrows(ControlException.class, () -> console.capture(List.of("local/1"))).getMessage()
                    .contains("already being captured"));
        }
        assertTrue(run("dump local").stream().noneMatch(l -> l.contains(" captured")), "closed: the tap is gone");
    }

    @Test
    void portsListsTheLocalPortsAndWaitsUntilTheCabledOnesAreActive() throws ControlException {
        List<String> before = run("ports");
        assertEquals(2, before.size(), before.toString());
        assertTrue(before.get(0).matches("\"local\"\\[1\\] guid 0x[0-9a-f]{16} lid 0 Init/LinkUp"), before.get(0));
        assertTrue(refused("ports wait active 0").startsWith("not Active after 0 s: \"local\"[1]"),
                "a cabled port still Init: " + refused("ports wait active 0"));
        io.ibemu.emulator.fabric.PresetSubnet.configure(fabric, local.port(1));
        List<String> after = run("ports wait active 5");
        assertTrue(after.get(0).endsWith("Active/LinkUp"), after.toString());
        assertTrue(refused("ports wait").contains("ports wait active SECONDS"));
    }
}
