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
    @TempDir
    Path dir;

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

    private static Topology resource(String name) throws Exception {
        try (InputStream in = TopologyParserTest.class.getResourceAsStream(name)) {
            return TopologyParser.parse(name, new java.io.InputStreamReader(in, StandardCharsets.UTF_8));
        }
    }

    @Test
    void ibsimPortOptionsMeanWhatRealIbnetdiscoverPrints() throws Exception {
        Topology net = resource("speeds.net");
        Set<List<Object>> expected = byDescription(net);
        assertEquals(expected, byDescription(resource("speeds.ibnetdiscover")));
        assertEquals(expected, byDescription(resource("speeds-full.ibnetdiscover")), "ibnetdiscover -f");
        assertEquals(expected, byDescription(resource("speeds-grouped.ibnetdiscover")), "ibnetdiscover -g");
        assertEquals(List.of(
                new LinkSpec("sw1", 1, "h1", 1, LinkWidth.X4, LinkSpeed.HDR),
                new LinkSpec("sw1", 2, "h2", 1, LinkWidth.X12, LinkSpeed.QDR),
                new LinkSpec("sw1", 3, "sw2", 1, LinkWidth.X1, LinkSpeed.SDR),
                new LinkSpec("sw1", 4, "sw2", 2, LinkWidth.X2, LinkSpeed.HDR),
                new LinkSpec("sw1", 5, "h1", 2, LinkWidth.X8, LinkSpeed.EDR),
                new LinkSpec("sw2", 3, "h3", 1, LinkWidth.X4, LinkSpeed.FDR)), net.links());
    }

    @Test
    void everyWidthAndSpeedWordOfIbnetdiscover() throws Exception {
        String[][] cases = {{"1xSDR", "X1", "SDR"}, {"2xDDR", "X2", "DDR"}, {"4xQDR", "X4", "QDR"},
            {"8xFDR10", "X8", "FDR10"}, {"12xFDR", "X12", "FDR"}, {"4xEDR", "X4", "EDR"}, {"4xHDR", "X4", "HDR"},
            {"4xNDR", "X4", "NDR"}, {"2xNDR", "X2", "NDR"}};
        for (String[] c : cases) {
            Topology t = parse("Switch 2 \"S-0000000000000010\" # \"s\" base port 0 lid 1 lmc 0\n"
                    + "[1] \"H-0000000000000020\"[1](21) # \"h HCA-1\" lid 2 " + c[0] + "\n"
                    + "Ca 1 \"H-0000000000000020\" # \"h HCA-1\"\n"
                    + "[1](21) \"S-0000000000000010\"[1] # lid 2 lmc 0 \"s\" lid 1 " + c[0] + "\n");
            LinkSpec l = t.links().get(0);
            assertEquals(LinkWidth.valueOf(c[1]), l.width(), c[0]);
            assertEquals(LinkSpeed.valueOf(c[2]), l.speed(), c[0]);
        }
        Topology unknown = parse("Switch 2 \"S-0000000000000010\" # \"s\" lid 1\n"
                + "[1] \"H-0000000000000020\"[1](21) # \"h\" lid 2 4x???\nCa 1 \"H-0000000000000020\"\n");
        assertNull(unknown.links().get(0).speed(), "ibnetdiscover prints ??? for a speed it does not know");
        fails("Switch 2 \"S-0000000000000010\"\n[1] \"H-0000000000000020\"[1](21) # \"h\" lid 2 3xQDR\n"
                + "Ca 1 \"H-0000000000000020\"\n", 2, "no 3x link width: expected 1x, 2x, 4x, 8x or 12x");
        fails("Switch 8 \"s\"\n[1] \"a\"[1] e=16\nHca 1 \"a\"\n", 2, "extended speed mask 16 must be 0..15");
        fails("Switch 8 \"s\"\n[1] \"a\"[1] s=9\nHca 1 \"a\"\n", 2, "speed mask 9 must be 0..7");
        fails("Switch 8 \"s\"\n[1] \"a\"[1] # \"a\" lid 3 4xQDR\nHca 1 \"a\"\n[1] \"s\"[1] # lid 3 lmc 0 \"s\" "
                + "lid 1 4xFDR\n", 4, "disagree on speed: QDR at net:2, FDR here");
    }

    @Test
    void ibsimNetLinkOptionsAndDefaults() throws Exception {
        Topology t = parse("""
                Switch 4 "s"
                [1] "a"[1] w=0x3 s=0
                [2] "b"[1] w=17 s=3 e=0
                [3] "c"[1] w=2 s=7 e=9
                speed=1
                Hca 1 "a"
                Hca 1 "b"
                Hca 1 "c"
                Hca 1 "d"
                [1] "s"[4]
                """);
        assertEquals(new LinkSpec("s", 1, "a", 1, LinkWidth.X4, LinkSpeed.QDR), t.links().get(0), "s=0 is QDR");
        assertEquals(new LinkSpec("s", 2, "b", 1, LinkWidth.X2, LinkSpeed.DDR), t.links().get(1));
        assertEquals(new LinkSpec("s", 3, "c", 1, LinkWidth.X4, LinkSpeed.NDR), t.links().get(2),
                "the fastest extended speed enabled");
        assertEquals(new LinkSpec("d", 1, "s", 4, null, LinkSpeed.SDR), t.links().get(3), "speed= for later ports");
    }

    @Test
    void switchesHaveUpTo254Ports() throws Exception {
        StringBuilder text = new StringBuilder("Switch 254 \"big\" # \"director switch\"\n");
        for (int p = 1; p <= 254; p++) {
            text.append("[").append(p).append("] \"h").append(p).append("\"[1]\n");
        }
        for (int p = 1; p <= 254; p++) {
            text.append("Hca 1 \"h").append(p).append("\"\n");
        }
        Topology t = parse(text.toString());
        assertEquals(254, t.nodes().get(0).portCount());
        assertEquals(254, t.links().size());
        assertEquals(new LinkSpec("big", 254, "h254", 1, null, null), t.links().get(253));
        fails("# a comment\nSwitch 255 \"big\"\n", 2, "a node has 1 to 254 ports, got 255");
        fails("Switch 0 \"none\"\n", 1, "a node has 1 to 254 ports, got 0");
        fails("Hca 1 \"h\"\nHca 255 \"big\"\n", 2, "a node has 1 to 254 ports, got 255");
    }

    @Test
    void parallelLinksBetweenTwoSwitches() throws Exception {
        Topology t = parse("""
                Switch 36 "spine"
                [1] "leaf"[33]
                [2] "leaf"[34] w=2
                [3] "leaf"[35]
                Switch 36 "leaf"
                [33] "spine"[1]
                [34] "spine"[2] w=2
                [35] "spine"[3]
                [36] "spine"[4]
                """);
        assertEquals(List.of(
                new LinkSpec("spine", 1, "leaf", 33, null, null),
                new LinkSpec("spine", 2, "leaf", 34, LinkWidth.X4, null),
                new LinkSpec("spine", 3, "leaf", 35, null, null),
                new LinkSpec("leaf", 36, "spine", 4, null, null)), t.links());
        fails("Switch 4 \"a\"\n[1] \"b\"[1]\n[2] \"b\"[1]\nSwitch 4 \"b\"\n", 3,
                "\"a\"[2] is cabled to \"b\"[1], which already has a cable");
    }

    @Test
    void descriptionsWithSpacesQuotesAndKeywords() throws Exception {
        Topology net = parse("""
                Switch 4 "sw" # "MF0;sw lid 7:SX6036/U1" enhanced port 0 lid 9 lmc 0
                [1] "a"[1]
                Hca 1 "a" # "node "a" HCA-1"
                Hca 1 "b" # plain words HCA-1
                Switch 2 "t" # big switch enhanced port 0 lid 4
                """);
        NodeSpec sw = net.node("sw").orElseThrow();
        assertEquals("MF0;sw lid 7:SX6036/U1", sw.description(), "keywords inside the quotes stay");
        assertEquals(9, sw.baseLid());
        assertEquals("node \"a\" HCA-1", net.node("a").orElseThrow().description());
        assertEquals("plain words HCA-1", net.node("b").orElseThrow().description(), "unquoted, as ibsim reads it");
        NodeSpec t = net.node("t").orElseThrow();
        assertEquals("big switch", t.description());
        assertTrue(t.enhancedPort0());
        assertEquals(4, t.baseLid());

        Topology ibnd = parse("""
                switchguid=0x10(10)
                Switch	4 "S-0000000000000010"		# "core "1" # lid 5" base port 0 lid 1 lmc 0
                [1]	"H-0000000000000020"[1](21) 		# "h "x" lid 9 4xFDR" lid 2 4xQDR
                caguid=0x20
                Ca	1 "H-0000000000000020"		# "h "x" lid 9 4xFDR"
                [1](21) 	"S-0000000000000010"[1]		# lid 2 lmc 0 "core "1" # lid 5" lid 1 4xQDR
                """);
        assertEquals("core \"1\" # lid 5", ibnd.nodes().get(0).description());
        assertEquals(1, ibnd.nodes().get(0).baseLid());
        assertEquals("h \"x\" lid 9 4xFDR", ibnd.nodes().get(1).description());
        assertEquals(2, ibnd.nodes().get(1).baseLid(), "the LID before the quotes, not the one inside");
        assertEquals(LinkSpeed.QDR, ibnd.links().get(0).speed(), "the speed after the quotes");
        fails("Hca 1 \"h\" # \"unterminated\n", 1, "unterminated description");
    }

    @Test
    void hcaPortsWithoutCable() throws Exception {
        Topology t = parse("""
                Switch 8 "s"
                [3] "h"[2]
                Hca 4 "h"
                [2] "s"[3]
                """);
        NodeSpec h = t.node("h").orElseThrow();
        assertEquals(4, h.portCount());
        assertEquals(List.of(h.nodeGuid() + 1, h.nodeGuid() + 2, h.nodeGuid() + 3, h.nodeGuid() + 4), h.portGuids(),
                "uncabled ports have GUIDs too");
        assertEquals(List.of(new LinkSpec("s", 3, "h", 2, null, null)), t.links());
    }

    @Test
    void guidsFromIbnetdiscoverLines() throws Exception {
        Topology t = parse("""
                vendid=0x2c9
                devid=0xc738
                sysimgguid=0x2c9030000aa00
                switchguid=0x2c9030000aa10(2c9030000aa11)
                Switch\t8 "S-0002c9030000aa10"\t\t# "sw" enhanced port 0 lid 1 lmc 0
                [1]\t"H-0002c9030000bb00"[1](2c9030000bb07) \t\t# "h HCA-1" lid 3 4xEDR

                vendid=0x2c9
                devid=0x1017
                sysimgguid=0x2c9030000bbff
                caguid=0x2c9030000bb00
                Ca\t2 "H-0002c9030000bb00"\t\t# "h HCA-1"
                [1](2c9030000bb07) \t"S-0002c9030000aa10"[1]\t\t# lid 3 lmc 0 "sw" lid 1 4xEDR
                [2](2c9030000bb08) \t"H-0002c9030000cc00"[1] (2c9030000cc05) \t\t# lid 4 lmc 0 "g HCA-1" lid 7 4xEDR

                caguid=0x2c9030000cc00
                Ca\t1 "H-0002c9030000cc00"\t\t# "g HCA-1"
                """);
        NodeSpec sw = t.nodes().get(0);
        assertEquals(0x2c9030000aa10L, sw.nodeGuid());
        assertEquals(0x2c9030000aa11L, sw.portGuid(0), "switchguid=node(port 0)");
        assertEquals(0x2c9030000aa11L, sw.portGuid(5), "all switch ports share port 0's GUID");
        assertEquals(0x2c9030000aa00L, sw.systemImageGuid());
        assertEquals(0xc738, sw.deviceId());
        NodeSpec h = t.nodes().get(1);
        assertEquals(0x2c9030000bbffL, h.systemImageGuid());
        assertEquals(List.of(0x2c9030000bb07L, 0x2c9030000bb08L), h.portGuids(), "port GUIDs in parentheses");
        assertEquals(0x1017, h.deviceId());
        assertEquals(0x2c9, h.vendorId());
        assertEquals(3, h.baseLid());
        NodeSpec g = t.nodes().get(2);
        assertEquals(List.of(0x2c9030000cc05L), g.portGuids(), "a port GUID printed by the far end");
        assertEquals(g.nodeGuid(), g.systemImageGuid(), "no sysimgguid= line: the node GUID");
        assertEquals(new LinkSpec(h.id(), 2, g.id(), 1, LinkWidth.X4, LinkSpeed.EDR), t.links().get(1));
        fails("caguid=0x20\nCa 2 \"H-0000000000000020\"\n[1](21) \"S-0000000000000010\"[1]\n"
                + "switchguid=0x10(10)\nSwitch 2 \"S-0000000000000010\"\n[1] \"H-0000000000000020\"[1](99)\n",
                6, "port GUID 99 given for \"H-0000000000000020\"[1] disagrees with its own, 21");
        fails("sysimgguid=0xzz\nHca 1 \"a\"\n", 1, "expected a number like 0x2c9 or 12, got '0xzz'");
        fails("switchguid=0x10(10\nSwitch 2 \"s\"\n", 1, "expected switchguid=0x<guid>(<port guid>)");
    }

    @Test
    void devidCarriesOnAsInIbsimVendidDoesNot() throws Exception {
        Topology t = parse("""
                vendid=0x15b3
                devid=0x1017
                Hca 1 "a"
                Hca 1 "b"
                """);
        assertEquals(0x15b3, t.nodes().get(0).vendorId());
        assertEquals(TopologyParser.CA_VENDOR_ID, t.nodes().get(1).vendorId());
        assertEquals(0x1017, t.nodes().get(0).deviceId());
        assertEquals(0x1017, t.nodes().get(1).deviceId());
        fails("vendid=0x1000000\nHca 1 \"a\"\n", 1, "'0x1000000' does not fit in 24 bits");
    }

    private TopologyException failsOnBytes(byte[] bytes, int line, String expected) throws IOException {
        Path file = dir.resolve("bad.net");
        java.nio.file.Files.write(file, bytes);
        TopologyException e = assertThrows(TopologyException.class, () -> TopologyParser.parse(file));
        assertEquals(line, e.line(), e.getMessage());
        assertTrue(e.getMessage().contains(expected), e.getMessage());
        assertTrue(e.getMessage().length() < 400, "one short line: " + e.getMessage().length());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        return e;
    }

    /** Issue 10's hostile inputs: each one short line with its line number and the token, cut. */
    @Test
    void hostileInputsGiveOneShortLineWithWhere() throws Exception {
        byte[] latin1 = "Switch 8 \"s\"\n[1] \"caf\u00e9\"[1]\n".getBytes(StandardCharsets.ISO_8859_1);
        failsOnBytes(latin1, 2, "not UTF-8 text: byte 0xE9 at column 9");
        failsOnBytes(new byte[] {'#', '\n', 0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, (byte) 0x90, 0}, 2,
                "not UTF-8 text: byte 0x90 at column 9");
        byte[] huge = new byte[5_000_000];
        java.util.Arrays.fill(huge, (byte) 'x');
        TopologyException e = failsOnBytes(huge, 1, "expected a node line");
        assertTrue(e.getMessage().contains("characters)"), e.getMessage());
        failsOnBytes("Switch 8 \"s\"\n[1] \"a\"[99999999999]\nHca 1 \"a\"\n".getBytes(StandardCharsets.UTF_8), 2,
                "got [99999999999]");
        failsOnBytes("Hca 1 \"a\u0000b\"\n".getBytes(StandardCharsets.UTF_8), 1, "a NUL character at column 9");
        failsOnBytes("Hca 1 \"a\" # \"x\u0000\"\n".getBytes(StandardCharsets.UTF_8), 1, "\\x00");
        Path bom = dir.resolve("bom.net");
        java.nio.file.Files.write(bom, ("\uFEFFHca 1 \"a\"\r\n").getBytes(StandardCharsets.UTF_8));
        assertEquals(1, TopologyParser.parse(bom).nodes().size());
        assertEquals(1, parse("\uFEFFHca 1 \"a\"\n").nodes().size());
    }

    private static void fails(String text, int line, String expected) {
        TopologyException e = assertThrows(TopologyException.class, () -> parse(text));
        assertEquals(line, e.line(), e.getMessage());
        assertTrue(e.getMessage().startsWith("net:" + line + ": "), e.getMessage());
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @Test
    void ipoibPortOptionGivesACaPortItsAddress() throws Exception {
        Topology t = parse("""
                Switch 8 "s"
                [1] "a"[1] w=2
                Hca 2 "a"
                [1] "s"[1] ipoib=10.1.0.1/24 w=2
                [2] "s"[2]  ipoib=172.16.5.9/12
                """);
        NodeSpec a = t.node("a").orElseThrow();
        assertEquals(new IpoibAddress(0x0A010001, 24), a.ipoibAddress(1).orElseThrow());
        assertEquals("172.16.5.9/12", a.ipoibAddress(2).orElseThrow().toString());
        assertEquals(LinkWidth.X4, t.links().get(0).width(), "the other options still count");
        assertTrue(t.node("s").orElseThrow().ipoibAddresses().isEmpty());
        // ibnetdiscover lines take it before the comment too
        Topology ibnd = parse("""
                switchguid=0x2c90300aa0020(2c90300aa0020)
                Switch 8 "S-0002c90300aa0020" # "leaf" base port 0 lid 2 lmc 0
                caguid=0x2c90300bb0000
                Ca 1 "H-0002c90300bb0000" # "h1"
                [1](2c90300bb0001) 	"S-0002c90300aa0020"[5] ipoib=10.9.8.7/8		# lid 3 lmc 0 "leaf" lid 2 4xQDR
                """);
        assertEquals("10.9.8.7/8", ibnd.nodes().get(1).ipoibAddress(1).orElseThrow().toString());
    }

    @Test
    void aBadIpoibAddressNamesTheLineAndWhatToGive() {
        String head = "Switch 8 \"s\"\nHca 2 \"a\"\n";
        fails(head + "[1] \"s\"[1] ipoib=10.1.0.300/24\n", 3,
                "ipoib=10.1.0.300/24 on \"a\"[1]: '10.1.0.300/24': '300' is not an octet 0..255; give the port's "
                        + "IPv4 address and prefix, like ipoib=10.1.0.1/24");
        fails(head + "[1] \"s\"[1] ipoib=10.1.0.1\n", 3, "'10.1.0.1' has no prefix length");
        fails(head + "[1] \"s\"[1] ipoib=10.1.0.1/33\n", 3, "prefix length 33 is not 1..32");
        fails(head + "[1] \"s\"[1] ipoib=fe80::1/64\n", 3, "is not an IPv4 address with a prefix length");
        fails(head + "[1] \"s\"[1] ipoib=10.1.0.0/24\n", 3, "is the network's own address");
        fails(head + "[1] \"s\"[1] ipoib=10.1.0.255/24\n", 3, "is the network's broadcast address");
        fails(head + "[1] \"s\"[1] ipoib=10.1.0.1/24\n[2] \"s\"[2] ipoib=10.1.0.1/16\n", 4,
                "ipoib=10.1.0.1/16 on \"a\"[2]: 10.1.0.1 is already the address of \"a\"[1] (net:3); give each port "
                        + "an address of its own");
        fails("Switch 8 \"s\"\n[1] \"a\"[1] ipoib=10.1.0.1/24\nHca 1 \"a\"\n", 2,
                "only a CA port has an IPoIB interface");
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
        fails("Switch 8 \"s\"\n[1] \"a\"[1] x=3\nHca 1 \"a\"\n", 2, "expected port options w=, s=, e= or ipoib=, got 'x=3'");
        fails("Switch 8 \"s\"\n[1] \"a\"[1] w=40\nHca 1 \"a\"\n", 2, "width mask 40 must be 1..31");
        fails("Switch 8 \"s\"\n[1] \"a\"[1]\n", 2, "not defined");
        fails("# nothing\n", 1, "no nodes");
        fails("Ca 2 \"H-0002c903000a0b10\"\n[1](zz) \"s\"[1]\n", 2, "expected a port line like [1](2c903000e0b73)");
    }
}
