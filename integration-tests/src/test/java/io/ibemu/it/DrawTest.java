package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * {@code topology draw} and {@code ctl draw} laid out by Debian's Graphviz: the SVG, parsed,
 * holds every node of the 1k preset (hosts in their leaf's table) and, for a small fabric, every
 * node and every cable as its own line; a running instance's drawing shows a cut cable in the
 * cut colour and the local HCAs marked.
 */
class DrawTest {
    private static final Pattern NODE_LINE = Pattern.compile("^(?:Switch|Hca|Ca|Rt)\\s+\\d+\\s+\"([^\"]+)\"");

    @Test
    void theOneKPresetShowsEveryNode() throws Exception {
        Path dir = Files.createTempDirectory(Ibemu.tmpDir(), "draw-");
        Path net = dir.resolve("1k.net");
        Ibemu.ibemu("topology", "generate", "fat-tree", "--preset", "1k", "-o", net.toString()).assertOk();
        Path svg = dir.resolve("1k.svg");
        Ibemu.ibemu("topology", "draw", net.toString(), "-o", svg.toString()).assertOk();
        Svg s = Svg.parse(svg);
        List<String> nodes = nodeIds(net);
        assertEquals(1006, nodes.size());
        for (String id : nodes) {
            // a host in its leaf's table is a link in the SVG: dot names it a_node:ID
            assertTrue(s.ids.contains("node:" + id) || s.ids.contains("a_node:" + id), "no node:" + id + " in the SVG");
            assertTrue(s.texts.contains(id) || s.texts.stream().anyMatch(t -> t.startsWith(id + " ")),
                    "no text naming " + id);
        }
        assertEquals(30, s.ids.stream().filter(i -> i.startsWith("hosts:")).count(), "a table of hosts per leaf");
        assertTrue(s.texts.contains("32 hosts on leaf-001"), "the table says whose hosts it holds");
    }

    @Test
    void aSmallFabricShowsEveryNodeAndEveryCable() throws Exception {
        Path dir = Files.createTempDirectory(Ibemu.tmpDir(), "draw-");
        Path net = dir.resolve("small.net");
        Ibemu.ibemu("topology", "generate", "fat-tree", "--hosts", "14", "--radix", "8", "-o", net.toString())
                .assertOk();
        Path svg = dir.resolve("small.svg");
        Ibemu.ibemu("topology", "draw", net.toString(), "-o", svg.toString()).assertOk();
        Svg s = Svg.parse(svg);
        List<String> nodes = nodeIds(net);
        assertTrue(nodes.size() >= 18 && nodes.size() <= 24, nodes.toString());
        for (String id : nodes) {
            assertTrue(s.titles.contains(id), "no node " + id + " drawn alone");
        }
        long links = Files.readAllLines(net).stream().filter(l -> l.startsWith("[")).count() / 2;
        assertEquals(links, s.ids.stream().filter(i -> i.startsWith("cable:")).count(), "every cable its own line");
        assertTrue(s.texts.contains("4xQDR"), "cables carry their rate");
    }

    @Test
    void aRunningFabricShowsCutCablesAndLocalHcas() throws Exception {
        Path topology = Ibemu.root().resolve("integration-tests/src/test/resources/topology/two-switches.net");
        try (Ibemu ib = Ibemu.start("--topology", topology.toString(), "--local", "a", "--sm", "preset")) {
            Ibemu.ibemu("ctl", "--name", ib.name(), "link", "cut", "sw1", "8").assertOk();
            Path svg = Files.createTempDirectory(Ibemu.tmpDir(), "draw-").resolve("live.svg");
            Ibemu.ibemu("ctl", "--name", ib.name(), "draw", "-o", svg.toString()).assertOk();
            Svg s = Svg.parse(svg);
            assertEquals("#c62828", s.stroke.get("cable:sw1/8-sw2/8"), "the cut cable in the cut colour");
            assertEquals("#2e7d32", s.stroke.get("cable:a/1-sw1/1"), "an Active cable green");
            assertTrue(s.texts.contains("(local)"), "the local HCA marked");
            assertTrue(s.texts.stream().anyMatch(t -> t.matches("LID \\d+")), "LIDs shown");
            Result dot = Ibemu.ibemu("ctl", "--name", ib.name(), "draw").assertOk();
            assertTrue(dot.stdout().startsWith("graph fabric {"), dot.stdout());
        }
    }

    private static List<String> nodeIds(Path net) throws IOException {
        List<String> ids = new ArrayList<>();
        for (String l : Files.readAllLines(net)) {
            Matcher m = NODE_LINE.matcher(l);
            if (m.find()) {
                ids.add(m.group(1));
            }
        }
        return ids;
    }

    /** What the test reads from an SVG: element ids, titles, texts, and each group's first stroke colour. */
    private record Svg(Set<String> ids, Set<String> titles, List<String> texts, Map<String, String> stroke) {
        static Svg parse(Path file) throws Exception {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
            Document d = f.newDocumentBuilder().parse(file.toFile());
            Set<String> ids = new HashSet<>();
            Map<String, String> stroke = new HashMap<>();
            NodeList all = d.getElementsByTagName("*");
            for (int i = 0; i < all.getLength(); i++) {
                Element e = (Element) all.item(i);
                String id = e.getAttribute("id");
                if (!id.isEmpty()) {
                    ids.add(id);
                    NodeList paths = e.getElementsByTagName("path");
                    if (paths.getLength() > 0) {
                        stroke.put(id, ((Element) paths.item(0)).getAttribute("stroke"));
                    }
                }
            }
            Set<String> titles = new HashSet<>();
            NodeList ts = d.getElementsByTagName("title");
            for (int i = 0; i < ts.getLength(); i++) {
                titles.add(ts.item(i).getTextContent());
            }
            List<String> texts = new ArrayList<>();
            NodeList xs = d.getElementsByTagName("text");
            for (int i = 0; i < xs.getLength(); i++) {
                texts.add(xs.item(i).getTextContent());
            }
            return new Svg(ids, titles, texts, stroke);
        }
    }
}
