package io.ibemu.emulator.view;

import io.ibemu.emulator.topology.NodeType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A {@link Picture} as Graphviz DOT, for {@code dot} to lay out: tiers as ranks bottom to top
 * (adapters at the edge, spines on top), cables coloured by state, local HCAs filled. Exact up
 * to {@link #GROUP_ABOVE} adapters: every cable its own line with its ports and rate. Above
 * that the adapters hanging off one leaf become a table under it, a cell per host coloured by
 * its cable's state, and parallel cables one line; local HCAs always stand alone. Every node
 * and cable carries an SVG id ({@code node:ID}, {@code a_node:ID} for a host in a table,
 * {@code cable:A/P-B/Q}, {@code hosts:LEAF}) for the live page to find.
 */
public final class Drawing {
    /** Adapters beyond which hosts are drawn per leaf. */
    public static final int GROUP_ABOVE = 64;
    static final int HOSTS_PER_ROW = 2;

    private final Picture picture;
    private final StringBuilder out = new StringBuilder();
    /** Non-local adapters drawn inside their leaf's table, by leaf. */
    private final Map<String, List<Picture.Shape>> hostsByLeaf = new TreeMap<>();
    private final Map<String, String> leafOfHost = new LinkedHashMap<>();
    private final Map<String, Picture.Shape> byId = new LinkedHashMap<>();

    private Drawing(Picture picture) {
        this.picture = picture;
    }

    public static String dot(Picture picture) {
        return new Drawing(picture).write();
    }

    private boolean grouped() {
        return picture.nodes().stream().filter(n -> n.type() != NodeType.SWITCH).count() > GROUP_ABOVE;
    }

    private String write() {
        for (Picture.Shape n : picture.nodes()) {
            byId.put(n.id(), n);
        }
        boolean grouped = grouped();
        if (grouped) {
            groupHosts();
        }
        out.append("graph fabric {\n");
        out.append("  graph [rankdir=BT, ranksep=").append(grouped ? "2.5" : "1.0")
                .append(", nodesep=0.25, fontname=\"Helvetica\", fontsize=12, labelloc=b, label=<")
                .append(legend()).append(">];\n");
        out.append("  node [fontname=\"Helvetica\", fontsize=10];\n");
        out.append("  edge [fontname=\"Helvetica\", fontsize=8];\n");
        Map<Integer, List<String>> ranks = new TreeMap<>();
        for (Picture.Shape n : picture.nodes()) {
            if (leafOfHost.containsKey(n.id())) {
                continue;
            }
            node(n);
            ranks.computeIfAbsent(n.tier(), t -> new ArrayList<>()).add(n.id());
        }
        for (Map.Entry<String, List<Picture.Shape>> e : hostsByLeaf.entrySet()) {
            hostTable(e.getKey(), e.getValue());
            ranks.computeIfAbsent(0, t -> new ArrayList<>()).add(tableId(e.getKey()));
        }
        for (List<String> rank : ranks.values()) {
            out.append("  { rank=same;");
            rank.forEach(id -> out.append(' ').append(quote(id)).append(';'));
            out.append(" }\n");
        }
        if (grouped) {
            mergedCables();
        } else {
            picture.cables().forEach(this::cable);
        }
        out.append("}\n");
        return out.toString();
    }

    /** Adapters whose every cable goes to one switch, and that this host does not play. */
    private void groupHosts() {
        Map<String, String> leaf = new LinkedHashMap<>();
        Map<String, Boolean> single = new LinkedHashMap<>();
        for (Picture.Cable c : picture.cables()) {
            for (String[] ends : new String[][] {{c.nodeA(), c.nodeB()}, {c.nodeB(), c.nodeA()}}) {
                Picture.Shape host = byId.get(ends[0]);
                Picture.Shape other = byId.get(ends[1]);
                if (host == null || other == null || host.type() == NodeType.SWITCH || host.local()
                        || other.type() != NodeType.SWITCH) {
                    continue;
                }
                String was = leaf.putIfAbsent(host.id(), other.id());
                single.merge(host.id(), was == null || was.equals(other.id()), Boolean::logicalAnd);
            }
        }
        for (Picture.Shape n : picture.nodes()) {
            String l = leaf.get(n.id());
            if (l != null && single.get(n.id())) {
                leafOfHost.put(n.id(), l);
                hostsByLeaf.computeIfAbsent(l, k -> new ArrayList<>()).add(n);
            }
        }
    }

    private void node(Picture.Shape n) {
        boolean sw = n.type() == NodeType.SWITCH;
        StringBuilder label = new StringBuilder(n.id().replace("\\", "\\\\"));
        if (n.local()) {
            label.append("\\n(local)");
        }
        if (n.lid() != 0) {
            label.append("\\nLID ").append(n.lid());
        }
        out.append("  ").append(quote(n.id())).append(" [id=").append(quote("node:" + n.id()));
        if (hostsByLeaf.containsKey(n.id())) {
            // the leaf stands straight above its table of hosts
            out.append(", group=").append(quote(n.id()));
        }
        out
                .append(", label=").append(quote(label.toString(), false))
                .append(", tooltip=").append(quote(n.description()))
                .append(sw ? ", shape=box, style=\"rounded,filled\", fillcolor=\"#eceff1\""
                        : n.local() ? ", shape=ellipse, style=\"filled,bold\", fillcolor=\"#bbdefb\", penwidth=2"
                        : ", shape=ellipse, style=filled, fillcolor=\"#ffffff\"")
                .append("];\n");
    }

    /** The hosts of one leaf as an HTML-like table: a cell each, shaded by its cable's state. */
    private void hostTable(String leaf, List<Picture.Shape> hosts) {
        Map<String, CableState> state = new LinkedHashMap<>();
        for (Picture.Cable c : picture.cables()) {
            if (leaf.equals(leafOfHost.get(c.nodeA()))) {
                state.merge(c.nodeA(), c.state(), CableState::worse);
            }
            if (leaf.equals(leafOfHost.get(c.nodeB()))) {
                state.merge(c.nodeB(), c.state(), CableState::worse);
            }
        }
        out.append("  ").append(quote(tableId(leaf))).append(" [id=").append(quote(tableId(leaf)))
                .append(", group=").append(quote(leaf)).append(", shape=plain, label=<<TABLE BORDER=\"1\" CELLBORDER=\"0\" CELLSPACING=\"1\" CELLPADDING=\"2\">");
        out.append("<TR><TD COLSPAN=\"").append(HOSTS_PER_ROW).append("\"><B>").append(html(hosts.size() + " hosts on "
                + leaf)).append("</B></TD></TR>");
        for (int i = 0; i < hosts.size(); i += HOSTS_PER_ROW) {
            out.append("<TR>");
            for (int j = i; j < Math.min(hosts.size(), i + HOSTS_PER_ROW); j++) {
                Picture.Shape h = hosts.get(j);
                CableState s = state.getOrDefault(h.id(), CableState.DOWN);
                // dot writes a cell's ID into the SVG only for a link: the id comes out as "a_node:ID"
                out.append("<TD ID=\"").append(html("node:" + h.id())).append("\" HREF=\"#").append(html(h.id()))
                        .append("\" BGCOLOR=\"").append(s.fill())
                        .append("\" TOOLTIP=\"").append(html(h.id() + ": " + s.label()
                                + (h.lid() != 0 ? ", LID " + h.lid() : ""))).append("\">")
                        .append(html(h.id())).append("</TD>");
            }
            out.append("</TR>");
        }
        out.append("</TABLE>>];\n");
    }

    private static String tableId(String leaf) {
        return "hosts:" + leaf;
    }

    /** One cable, drawn from its lower-tier end up, with its ports and rate. */
    private void cable(Picture.Cable c) {
        boolean up = tier(c.nodeA()) <= tier(c.nodeB());
        String lo = up ? c.nodeA() : c.nodeB();
        String hi = up ? c.nodeB() : c.nodeA();
        int loPort = up ? c.portA() : c.portB();
        int hiPort = up ? c.portB() : c.portA();
        out.append("  ").append(quote(lo)).append(" -- ").append(quote(hi)).append(" [id=")
                .append(quote("cable:" + c.name())).append(", color=\"").append(c.state().line())
                .append("\", style=").append(c.state().style()).append(", penwidth=").append(penwidth(c))
                .append(", label=").append(quote(c.rate())).append(", taillabel=\"").append(loPort)
                .append("\", headlabel=\"").append(hiPort).append("\", tooltip=")
                .append(quote(c.name() + ": " + c.rate() + " " + c.state().label())).append("];\n");
    }

    /** Big fabrics: a leaf's hosts as one line to its table, parallel cables as one line, worst state shown. */
    private void mergedCables() {
        record Pair(String lo, String hi) {
        }
        Map<Pair, List<Picture.Cable>> lines = new LinkedHashMap<>();
        for (Picture.Cable c : picture.cables()) {
            String a = leafOfHost.containsKey(c.nodeA()) ? tableId(leafOfHost.get(c.nodeA())) : c.nodeA();
            String b = leafOfHost.containsKey(c.nodeB()) ? tableId(leafOfHost.get(c.nodeB())) : c.nodeB();
            boolean up = tier(a) <= tier(b);
            lines.computeIfAbsent(new Pair(up ? a : b, up ? b : a), k -> new ArrayList<>()).add(c);
        }
        for (Map.Entry<Pair, List<Picture.Cable>> e : lines.entrySet()) {
            List<Picture.Cable> cs = e.getValue();
            CableState worst = cs.stream().map(Picture.Cable::state).reduce(CableState.PLANNED, CableState::worse);
            Picture.Cable first = cs.get(0);
            String label = cs.size() == 1 ? first.rate() : cs.size() + "\u00d7 " + first.rate();
            String id = cs.size() == 1 ? "cable:" + first.name() : "cables:" + e.getKey().lo() + "-" + e.getKey().hi();
            out.append("  ").append(quote(e.getKey().lo())).append(" -- ").append(quote(e.getKey().hi()))
                    .append(" [id=").append(quote(id)).append(", color=\"").append(worst.line()).append("\", style=")
                    .append(worst.style()).append(", penwidth=").append(Math.min(6, cs.size()))
                    .append(", tooltip=").append(quote(label + " " + worst.label())).append("];\n");
        }
    }

    private int tier(String id) {
        if (id.startsWith("hosts:") && !byId.containsKey(id)) {
            return 0;
        }
        Picture.Shape n = byId.get(id);
        return n == null ? 0 : n.tier();
    }

    private static int penwidth(Picture.Cable c) {
        return c.width().lanes() >= 12 ? 3 : c.width().lanes() >= 4 ? 2 : 1;
    }

    private String legend() {
        StringBuilder b = new StringBuilder("<B>").append(html(picture.title())).append("</B>  ")
                .append(picture.nodes().size()).append(" nodes, ").append(picture.cables().size()).append(" cables  ");
        for (CableState s : CableState.values()) {
            if (picture.cables().stream().anyMatch(c -> c.state() == s)) {
                b.append(" <FONT COLOR=\"").append(s.line()).append("\">\u2501 ").append(html(s.label())).append("</FONT>");
            }
        }
        return b.toString();
    }

    static String quote(String s) {
        return quote(s, true);
    }

    /** A DOT quoted string; {@code escapeBackslash} false keeps "\n" line breaks in labels. */
    private static String quote(String s, boolean escapeBackslash) {
        String v = s == null ? "" : s;
        if (escapeBackslash) {
            v = v.replace("\\", "\\\\");
        }
        return "\"" + v.replace("\"", "\\\"") + "\"";
    }

    static String html(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
