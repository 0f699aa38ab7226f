package io.ibemu.emulator.control;

import io.ibemu.emulator.fabric.Fabric;
import io.ibemu.emulator.fabric.Node;
import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.topology.LinkSpec;
import io.ibemu.emulator.topology.LinkSpeed;
import io.ibemu.emulator.topology.LinkWidth;
import io.ibemu.emulator.topology.NodeSpec;
import io.ibemu.emulator.topology.NodeType;
import io.ibemu.emulator.topology.Topology;
import io.ibemu.emulator.topology.TopologyException;
import io.ibemu.emulator.topology.TopologyParser;
import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The lines of {@code node add}: topology-file lines for one node. Settings and the node line
 * go through {@link TopologyParser} as they are; port lines name nodes already in the fabric, which
 * the parser would not know, so they are read here: {@code [p] "peer"[q]}, optionally followed by
 * a rate such as {@code 4xQDR}. A node given no GUID ({@code caguid=}, {@code switchguid=},
 * an "H-/S-&lt;guid&gt;" id) gets the first free one in the parser's numbering.
 */
final class NodeText {
    record Parsed(NodeSpec spec, List<LinkSpec> links) {
    }

    private static final Pattern PORT = Pattern.compile(
            "^\\[(\\d+)\\]\\s*\"([^\"]+)\"\\s*(?:\\[(\\d+)\\])?\\s*(?:(\\d+)[xX](\\w+))?\\s*(?:#.*)?$");
    private static final Pattern GUID_ID = Pattern.compile("^[SHR]-[0-9a-fA-F]{16}$");
    private static final Pattern GUID_SETTING = Pattern.compile("^\\s*(switchguid|caguid|hcaguids|rtguid)\\s*=.*",
            Pattern.CASE_INSENSITIVE);

    private NodeText() {
    }

    static Parsed parse(List<String> lines, Fabric fabric) throws ControlException {
        List<String> nodeLines = new ArrayList<>();
        List<String> portLines = new ArrayList<>();
        boolean guidGiven = false;
        for (String l : lines) {
            for (String line : l.split("\n")) {
                String t = line.strip();
                if (t.startsWith("[")) {
                    portLines.add(t);
                } else {
                    nodeLines.add(line);
                    guidGiven |= GUID_SETTING.matcher(t).matches();
                }
            }
        }
        Topology parsed;
        try {
            parsed = TopologyParser.parse("node add", new StringReader(String.join("\n", nodeLines)));
        } catch (TopologyException e) {
            throw new ControlException(e.getMessage());
        } catch (IOException e) {
            throw new ControlException("node add: " + e.getMessage());
        }
        if (parsed.nodes().size() != 1) {
            throw new ControlException("node add takes one node, got " + parsed.nodes().size()
                    + ": give one Switch, Hca, Ca or Rt line");
        }
        NodeSpec spec = parsed.nodes().get(0);
        if (!guidGiven && !GUID_ID.matcher(spec.id()).matches()) {
            spec = freshGuids(spec, fabric);
        }
        List<LinkSpec> links = new ArrayList<>();
        for (String t : portLines) {
            Matcher m = PORT.matcher(t);
            if (!m.matches()) {
                throw new ControlException("node add: expected a port line like [1] \"switch\"[4] (optionally "
                        + "followed by a rate such as 4xQDR), got '" + t + "'");
            }
            int port = Integer.parseInt(m.group(1));
            int peerPort = m.group(3) != null ? Integer.parseInt(m.group(3)) : 1;
            LinkWidth w = null;
            LinkSpeed s = null;
            if (m.group(4) != null) {
                try {
                    w = LinkWidth.ofLanes(Integer.parseInt(m.group(4)));
                    s = LinkSpeed.parse(m.group(5));
                } catch (IllegalArgumentException e) {
                    throw new ControlException("node add: '" + m.group(4) + "x" + m.group(5)
                            + "' is not a link rate (e.g. 4xQDR, 1xSDR, 4xEDR)");
                }
            }
            links.add(new LinkSpec(spec.id(), port, m.group(2), peerPort, w, s));
        }
        return new Parsed(spec, links);
    }

    /** The parser numbered the node as the first of its file: number it after the fabric's nodes. */
    private static NodeSpec freshGuids(NodeSpec spec, Fabric fabric) {
        Set<Long> taken = new HashSet<>();
        for (Node n : fabric.nodes()) {
            taken.add(n.guid());
            for (Port p : n.ports()) {
                taken.add(p.guid());
            }
        }
        long prefix = spec.nodeGuid() & 0xFFFFFFFFFF000000L;
        boolean sw = spec.type() == NodeType.SWITCH;
        for (long k = fabric.nodes().size() + 1; ; k++) {
            long guid = prefix | (k << 8);
            List<Long> ports = new ArrayList<>();
            if (sw) {
                ports.add(guid);
            } else {
                for (int p = 1; p <= spec.portCount(); p++) {
                    ports.add(guid + p);
                }
            }
            if (!taken.contains(guid) && ports.stream().noneMatch(taken::contains)) {
                long image = spec.systemImageGuid() == spec.nodeGuid() ? guid : spec.systemImageGuid();
                return new NodeSpec(spec.type(), spec.id(), guid, image, spec.description(), spec.portCount(), ports,
                        spec.vendorId(), spec.deviceId(), spec.revision(), spec.baseLid(), spec.enhancedPort0(),
                        spec.ipoibAddresses());
            }
        }
    }
}
