package io.ibemu.emulator.topology.generate;

import io.ibemu.emulator.topology.LinkSpec;
import io.ibemu.emulator.topology.LinkSpeed;
import io.ibemu.emulator.topology.LinkWidth;
import io.ibemu.emulator.topology.NodeSpec;
import io.ibemu.emulator.topology.NodeType;
import io.ibemu.emulator.topology.Topology;
import io.ibemu.emulator.topology.TopologyParser;
import java.util.ArrayList;
import java.util.List;

/**
 * Collects the switches, HCAs and cables of a generated fabric and numbers their GUIDs by the
 * order they are added, so the same generator parameters always give the same file. Switches
 * get Mellanox-OUI GUIDs {@code 0x0002c903000000nn} (one per switch: every port shares it, as on
 * real switches); HCA number h (from 1) gets the QLogic-OUI node GUID {@code 0x00117501hhhhhhh0}
 * with port p at node + p, like the QLE7340-style adapters the daemon emulates locally, and the
 * same PCI ids the parser gives an HCA without {@code vendid=}/{@code devid=}.
 */
final class FabricBuilder {
    static final long SWITCH_GUID_BASE = 0x0002c90300000000L;
    static final long HCA_GUID_BASE = 0x0011750100000000L;

    /** A node being built: its spec fields and which ports already have a cable. */
    static final class Node {
        final NodeType type;
        final String id;
        final String description;
        final long guid;
        final boolean[] cabled;

        Node(NodeType type, String id, String description, long guid, int ports) {
            this.type = type;
            this.id = id;
            this.description = description;
            this.guid = guid;
            this.cabled = new boolean[ports + 1];
        }

        int ports() {
            return cabled.length - 1;
        }
    }

    private final LinkWidth width;
    private final LinkSpeed speed;
    private final List<Node> switches = new ArrayList<>();
    private final List<Node> hcas = new ArrayList<>();
    private final List<LinkSpec> links = new ArrayList<>();

    FabricBuilder(LinkWidth width, LinkSpeed speed) {
        this.width = width;
        this.speed = speed;
    }

    /** A switch described by its name, "leaf-001", as a switch's node description reads. */
    Node addSwitch(String name, int ports) {
        if (ports < 1 || ports > 254) {
            throw new IllegalArgumentException("a switch has 1 to 254 ports, not " + ports);
        }
        Node n = new Node(NodeType.SWITCH, name, name, SWITCH_GUID_BASE + switches.size() + 1, ports);
        switches.add(n);
        return n;
    }

    /** A host's adapter: id "host0001", description "host0001 HCA-1" as the kernel's node_desc reads. */
    Node addHca(String host, int ports) {
        long guid = HCA_GUID_BASE + ((long) (hcas.size() + 1) << 4);
        Node n = new Node(NodeType.CA, host, host + " HCA-1", guid, ports);
        hcas.add(n);
        return n;
    }

    void cable(Node a, int portA, Node b, int portB) {
        take(a, portA);
        take(b, portB);
        links.add(new LinkSpec(a.id, portA, b.id, portB, width, speed));
    }

    /** A generator bug, not a user error: each port gets one cable. */
    private static void take(Node n, int port) {
        if (port < 1 || port > n.ports() || n.cabled[port]) {
            throw new IllegalStateException(n.id + "[" + port + "] is not a free port");
        }
        n.cabled[port] = true;
    }

    Topology build() {
        List<NodeSpec> nodes = new ArrayList<>(switches.size() + hcas.size());
        for (Node n : switches) {
            nodes.add(new NodeSpec(NodeType.SWITCH, n.id, n.guid, n.guid, n.description, n.ports(), List.of(n.guid),
                    TopologyParser.SWITCH_VENDOR_ID, TopologyParser.SWITCH_DEVICE_ID, 0, 0, true));
        }
        for (Node n : hcas) {
            List<Long> portGuids = new ArrayList<>(n.ports());
            for (int p = 1; p <= n.ports(); p++) {
                portGuids.add(n.guid + p);
            }
            nodes.add(new NodeSpec(NodeType.CA, n.id, n.guid, n.guid, n.description, n.ports(), portGuids,
                    TopologyParser.CA_VENDOR_ID, TopologyParser.CA_DEVICE_ID, 0, 0, false));
        }
        return new Topology(nodes, links);
    }

    /** "007" for 7 of at most 999: numbers padded to the width of the largest, at least {@code min}. */
    static String number(int n, int largest, int min) {
        int digits = Math.max(min, Integer.toString(largest).length());
        String s = Integer.toString(n);
        return "0".repeat(Math.max(0, digits - s.length())) + s;
    }

    /** The smallest divisor of {@code n} that is at least {@code atLeast} (n itself if none smaller). */
    static int divisorAtLeast(int n, int atLeast) {
        for (int d = Math.max(1, atLeast); d < n; d++) {
            if (n % d == 0) {
                return d;
            }
        }
        return n;
    }
}
