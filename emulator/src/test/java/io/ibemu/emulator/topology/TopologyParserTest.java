package io.ibemu.emulator.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TopologyParserTest {
    private static Topology parse(String text) throws Exception {
        return TopologyParser.parse("net", new StringReader(text));
    }

    private static String sample() throws IOException {
        try (InputStream in = TopologyParserTest.class.getResourceAsStream("two-switches.ibnetdiscover")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void readsIbsimNetFormat() throws Exception {
        Topology t = parse("""
                # three nodes
                Switch 4 "sw" # "the switch" enhanced port 0
                [1] "h1"[1] w=2 s=4
                [2]\t"h2"
                [3] "h1"[2]

                Hca 2 "h1"
                [1] "sw"[1]

                Hca\t1 "h2"
                """);
        assertEquals(3, t.nodes().size());
        NodeSpec sw = t.nodes().get(0);
        assertEquals(NodeType.SWITCH, sw.type());
        assertEquals("the switch", sw.description());
        assertEquals(4, sw.portCount());
        assertTrue(sw.enhancedPort0());
        assertEquals(0x0002c90000000100L, sw.nodeGuid());
        assertEquals(List.of(sw.nodeGuid()), sw.portGuids());
        assertEquals(TopologyParser.SWITCH_VENDOR_ID, sw.vendorId());
        NodeSpec h1 = t.node("h1").orElseThrow();
        assertEquals("h1", h1.description(), "a net node without # description is described by its name");
        assertEquals(0x0011750000000200L, h1.nodeGuid());
        assertEquals(List.of(0x0011750000000201L, 0x0011750000000202L), h1.portGuids());
        assertEquals(h1.nodeGuid(), h1.systemImageGuid());
        assertEquals(0x1077, h1.vendorId());
        assertEquals(0x7322, h1.deviceId());
        assertEquals(0, h1.baseLid());
        assertEquals(List.of(
                new LinkSpec("sw", 1, "h1", 1, LinkWidth.X4, LinkSpeed.QDR),
                new LinkSpec("sw", 2, "h2", 1, null, null),
                new LinkSpec("sw", 3, "h1", 2, null, null)), t.links());
        assertEquals(TopologyParser.Format.NET, TopologyParser.detect(List.of("Switch 4 \"sw\"")));
    }

    @Test
    void readsIbnetdiscoverOutput() throws Exception {
        String text = sample();
        assertEquals(TopologyParser.Format.IBNETDISCOVER, TopologyParser.detect(text.lines().toList()));
        Topology t = parse(text);
        assertEquals(5, t.nodes().size());
        NodeSpec spine = t.nodes().get(0);
        assertEquals("S-0002c902004a0001", spine.id());
        assertEquals(0x0002c902004a0001L, spine.nodeGuid());
        assertEquals("MF0;spine-1:IS5030/U1", spine.description());
        assertEquals(36, spine.portCount());
        assertTrue(spine.enhancedPort0());
        assertEquals(1, spine.baseLid());
        assertEquals(0x2c9, spine.vendorId());
        assertEquals(0xbd36, spine.deviceId());
        NodeSpec leaf = t.nodes().get(1);
        assertFalse(leaf.enhancedPort0());
        NodeSpec a = t.node("H-0002c903000a0b10").orElseThrow();
        assertEquals(2, a.portCount());
        assertEquals(List.of(0x0002c903000a0b11L, 0x0002c903000a0b12L), a.portGuids(), "uncabled port 2: node + 2");
        assertEquals(0x0002c903000a0b13L, a.systemImageGuid());
        assertEquals(0x673c, a.deviceId());
        assertEquals(3, a.baseLid());
        NodeSpec two = t.nodes().get(3);
        assertEquals("node \"two\" HCA-1", two.description());
        NodeSpec c = t.nodes().get(4);
        assertEquals(6, c.baseLid(), "the lowest listed port's LID");
        assertEquals(List.of(0x0002c903000a0c21L, 0x0002c903000a0c22L), c.portGuids());

        assertEquals(7, t.links().size(), "each cable once, though listed from both ends");
        long parallel = t.links().stream()
                .filter(l -> l.nodeA().equals(spine.id()) && l.nodeB().equals(leaf.id())).count();
        assertEquals(3, parallel);
        assertTrue(t.links().contains(new LinkSpec(spine.id(), 5, leaf.id(), 6, LinkWidth.X1, LinkSpeed.SDR)));
        assertTrue(t.links().contains(new LinkSpec(spine.id(), 2, c.id(), 1, LinkWidth.X4, LinkSpeed.FDR)));
    }

    @Test
    void ibnetdiscoverSampleRoundTrips() throws Exception {
        Topology first = parse(sample());
        String written = TopologyWriter.ibnetdiscover(first);
        Topology second = TopologyParser.parse("written", new StringReader(written));
        assertEquals(first.nodes(), second.nodes(), written);
        assertEquals(cables(first), cables(second), written);
        assertEquals(written, TopologyWriter.ibnetdiscover(second));
    }

    /** Links without regard to which end was listed first. */
    private static Set<List<Object>> cables(Topology t) {
        Set<List<Object>> s = new HashSet<>();
        for (LinkSpec l : t.links()) {
            String a = l.nodeA() + "[" + l.portA() + "]";
            String b = l.nodeB() + "[" + l.portB() + "]";
            s.add(a.compareTo(b) < 0 ? List.of(a, b, "" + l.width(), "" + l.speed())
                    : List.of(b, a, "" + l.width(), "" + l.speed()));
        }
        return s;
    }

    @Test
    void realIbnetdiscoverOfTheDefaultFabricDescribesTheSameFabric() throws Exception {
        Topology real;
        try (InputStream in = TopologyParserTest.class.getResourceAsStream("ibsim-default.ibnetdiscover")) {
            real = TopologyParser.parse("ibsim-default", new java.io.InputStreamReader(in, StandardCharsets.UTF_8));
        }
        Topology ours = DefaultFabric.topology();
        assertEquals(byDescription(ours), byDescription(real));
    }

    /** Cables named by node descriptions, which ibsim keeps while it picks its own GUIDs. */
    private static Set<List<Object>> byDescription(Topology t) {
        Set<List<Object>> s = new HashSet<>();
        for (LinkSpec l : t.links()) {
            String a = t.node(l.nodeA()).orElseThrow().description() + "[" + l.portA() + "]";
            String b = t.node(l.nodeB()).orElseThrow().description() + "[" + l.portB() + "]";
            s.add(a.compareTo(b) < 0 ? List.of(a, b, l.width(), l.speed()) : List.of(b, a, l.width(), l.speed()));
        }
        for (NodeSpec n : t.nodes()) {
            s.add(List.of(n.description(), n.type(), n.portCount()));
        }
        return s;
    }

    @Test
    void sameFileSameGuids() throws Exception {
        String text = "Hca 1 \"a\"\n[1] \"b\"[1]\nHca 1 \"b\"\n";
        assertEquals(parse(text), parse(text));
        assertEquals(DefaultFabric.topology(), DefaultFabric.topology());
        assertEquals(0x0011750000000100L, parse(text).nodes().get(0).nodeGuid());
        assertEquals(0x0011750000000200L, parse(text).nodes().get(1).nodeGuid());
    }

    @Test
    void guidBasesCountOnAsIbsimDoes() throws Exception {
        Topology t = parse("""
                caguid=0x1000
                Hca 2 "a"
                Hca 1 "b"
                switchguid=0x500(0x501)
                Switch 8 "s"
                Switch 8 "s2"
                sysimgguid=0x77
                vendid=0x1175
                devid=0x10
                Hca 1 "c"
                """);
        assertEquals(0x1000, t.nodes().get(0).nodeGuid());
        assertEquals(0x1003, t.nodes().get(1).nodeGuid());
        assertEquals(0x500, t.nodes().get(2).nodeGuid());
        assertEquals(List.of(0x501L), t.nodes().get(2).portGuids());
        assertEquals(0x501, t.nodes().get(3).nodeGuid());
        NodeSpec c = t.nodes().get(4);
        assertEquals(0x1005, c.nodeGuid());
        assertEquals(0x77, c.systemImageGuid());
        assertEquals(0x1175, c.vendorId());
        assertEquals(0x10, c.deviceId());
    }

    @Test
    void defaultFabricShape() {
        Topology t = DefaultFabric.topology();
        assertEquals(4, t.nodes().size());
        NodeSpec local = t.nodes().get(0);
        assertEquals(NodeType.CA, local.type());
        assertEquals(2, local.portCount());
        assertEquals(3, t.links().size());
        assertTrue(t.links().stream().noneMatch(l -> (l.nodeA().equals(local.id()) && l.portA() == 2)
                || (l.nodeB().equals(local.id()) && l.portB() == 2)), "local port 2 has no cable");
        assertEquals(1, t.nodes().stream().filter(n -> n.type() == NodeType.SWITCH).count());
        assertEquals(8, t.node("switch").orElseThrow().portCount());
        assertTrue(t.links().stream().allMatch(l -> l.width() == LinkWidth.X4 && l.speed() == LinkSpeed.QDR));
    }

    @Test
    void speedsFromOptionsAndSettings() throws Exception {
        Topology t = parse("""
                width=8
                extspeed=2
                Switch 8 "s"
                [1] "a"[1]
                [2] "b"[1] w=1 s=2
                [3] "c"[1] e=4
                Hca 1 "a"
                Hca 1 "b"
                Hca 1 "c"
                """);
        assertEquals(new LinkSpec("s", 1, "a", 1, LinkWidth.X12, LinkSpeed.EDR), t.links().get(0));
        assertEquals(new LinkSpec("s", 2, "b", 1, LinkWidth.X1, LinkSpeed.DDR), t.links().get(1));
        assertEquals(LinkSpeed.HDR, t.links().get(2).speed());
        assertNull(parse("Hca 1 \"a\"\n[1] \"b\"\nHca 1 \"b\"").links().get(0).width());
    }

    @Test
    void includesResolveBesideTheFile(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("hosts.net"), "Hca 1 \"h\"\n[1] \"s\"[2]\n");
        Files.writeString(dir.resolve("main.net"), "Switch 4 \"s\"\n[2] \"h\"[1]\ninclude \"hosts.net\"\n");
        Topology t = TopologyParser.parse(dir.resolve("main.net"));
        assertEquals(2, t.nodes().size());
        assertEquals(1, t.links().size());

        Files.writeString(dir.resolve("bad.net"), "Hca 1 \"h\"\n[1] oops\n");
        Files.writeString(dir.resolve("top.net"), "# top\ninclude bad.net\n");
        TopologyException e = assertThrows(TopologyException.class, () -> TopologyParser.parse(dir.resolve("top.net")));
        assertEquals("bad.net", e.sourceName());
        assertEquals(2, e.line());
        assertTrue(e.getMessage().endsWith("(included from " + dir.resolve("top.net") + ":2)"), e.getMessage());

        Files.writeString(dir.resolve("loop.net"), "include loop.net\n");
        assertThrows(TopologyException.class, () -> TopologyParser.parse(dir.resolve("loop.net")));
    }

    private static void fails(String text, int line, String expected) {
        TopologyException e = assertThrows(TopologyException.class, () -> parse(text));
        assertEquals(line, e.line(), e.getMessage());
        assertTrue(e.getMessage().startsWith("net:" + line + ": "), e.getMessage());
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @Test
    void errorsSayWhereAndWhat() {
        fails("Switch 8 \"s\"\n[1] \"a\"[1]\n[2] a[1]\nHca 1 \"a\"\n", 3,
                "expected a port line like [1] \"node\"[2], got '[2] a[1]'");
        fails("[1] \"a\"[1]\n", 1, "port line outside a node");
        fails("Switch 8 \"s\"\n\n[1] \"nobody\"[1]\n", 3, "\"s\"[1] is cabled to \"nobody\", which is not defined");
        fails("Switch 8 \"s\"\n[9] \"a\"[1]\n", 2, "\"s\" has ports 1..8, got [9]");
        fails("Switch 8 \"s\"\n[0] \"a\"[1]\n", 2, "management port");
        fails("Hca 1 \"a\"\nHca 2 \"a\"\n", 2, "node \"a\" is already defined at net:1");
        fails("Switch 8 \"s\"\n[1] \"a\"[1]\n[1] \"b\"[1]\n", 3, "already listed at net:2");
        fails("Switch 8 \"s\"\n[1] \"a\"[1]\nHca 1 \"a\"\n[1] \"s\"[2]\n", 4,
                "\"s\"[1] (net:2) is cabled to \"a\"[1], but \"a\"[1] (net:4) is cabled to \"s\"[2]");
        fails("Switch 8 \"s\"\n[1] \"a\"[1] w=2\nHca 1 \"a\"\n[1] \"s\"[1] w=1\n", 4, "disagree on width");
        fails("Switch 8 \"s\"\n[1] \"a\"[1]\n[2] \"b\"[1]\nHca 1 \"a\"\nHca 1 \"b\"\nSwitch 2 \"t\"\n[1] \"a\"[1]\n", 7,
                "\"t\"[1] is cabled to \"a\"[1], which already has a cable");
        fails("Switch 8 \"s\"\n[1] \"a\"[5]\nHca 1 \"a\"\n", 2, "\"a\" has ports 1..1");
        fails("Hca 1 \"a\"\nfoo=1\n", 2, "unknown setting 'foo'");
        fails("Hca 1 \"a\"\nhello there\n", 2, "expected a node line like Switch 8 \"name\"");
        fails("Switch 300 \"big\"\n", 1, "1 to 254 ports");
        fails("switchguid=0x5\nSwitch 2 \"S-0000000000000006\"\n", 2, "does not match the GUID 0x5");
        fails("caguid=0x10\nHca 1 \"a\"\ncaguid=0x10\nHca 1 \"b\"\n", 4, "already used by \"a\" at net:2");
        fails("Switch 8 \"s\"\n[1] \"a\"[1] x=3\nHca 1 \"a\"\n", 2, "expected port options w=, s= or e=, got 'x=3'");
        fails("Switch 8 \"s\"\n[1] \"a\"[1] w=40\nHca 1 \"a\"\n", 2, "width mask 40 must be 1..31");
        fails("Switch 8 \"s\"\n[1] \"a\"[1]\n", 2, "not defined");
        fails("# nothing\n", 1, "no nodes");
        fails("Ca 2 \"H-0002c903000a0b10\"\n[1](zz) \"s\"[1]\n", 2, "expected a port line like [1](2c903000e0b73)");
    }
}
