package io.ibemu.emulator.topology.generate;

import io.ibemu.emulator.topology.LinkSpeed;
import io.ibemu.emulator.topology.LinkWidth;
import io.ibemu.emulator.topology.Topology;
import java.util.ArrayList;
import java.util.List;

/**
 * Switches in a line ("switch-01" - "switch-02" - ...), or closed into a ring, each with the same
 * number of hosts, neighbours joined by {@code linksBetween} parallel cables. One switch is the
 * plain "single switch with N hosts" fabric. Lines give long hop counts (directed routes, LID
 * routing over many switches); rings give a loop for an SM's routing to break.
 * Ports of switch i: hosts first (1..hostsPerSwitch), then the cables to the previous switch,
 * then those to the next one.
 */
public record SwitchChain(int switches, boolean ring, int hostsPerSwitch, int linksBetween, int radix,
                          LinkWidth width, LinkSpeed speed) {

    public SwitchChain {
        if (switches < 1 || switches > 99_999) {
            throw new IllegalArgumentException("1 to 99999 switches, not " + switches);
        }
        if (ring && switches < 3) {
            throw new IllegalArgumentException("a ring needs at least 3 switches, not " + switches);
        }
        if (hostsPerSwitch < 0) {
            throw new IllegalArgumentException("hosts per switch must be 0 or more, not " + hostsPerSwitch);
        }
        if (switches > 1 && linksBetween < 1) {
            throw new IllegalArgumentException("neighbouring switches need at least one link, not " + linksBetween);
        }
        if (radix < 1 || radix > 254) {
            throw new IllegalArgumentException("switch radix must be 1..254 ports, not " + radix);
        }
        int needed = hostsPerSwitch + (switches == 1 ? 0 : 2 * linksBetween);
        if (needed > radix) {
            throw new IllegalArgumentException(String.format("%d hosts and %d links to each neighbour need %d "
                    + "ports, more than the radix %d", hostsPerSwitch, switches == 1 ? 0 : linksBetween, needed,
                    radix));
        }
        if (width == null || speed == null) {
            throw new IllegalArgumentException("a link width and speed are needed");
        }
    }

    /** One switch of {@code radix} ports with {@code hosts} single-port HCAs, 4x QDR. */
    public static SwitchChain singleSwitch(int hosts, int radix) {
        return new SwitchChain(1, false, hosts, 0, radix, LinkWidth.X4, LinkSpeed.QDR);
    }

    public int nodeCount() {
        return switches * (1 + hostsPerSwitch);
    }

    public String summary() {
        String shape = switches == 1 ? String.format("single switch, radix %d, %d hosts", radix, hostsPerSwitch)
                : String.format("%s of %d switches, radix %d, %d hosts each, %d link(s) between neighbours",
                        ring ? "ring" : "line", switches, radix, hostsPerSwitch, linksBetween);
        return String.format("%s; %d nodes, %dx %s", shape, nodeCount(), width.lanes(), speed);
    }

    public Topology build() {
        FabricBuilder b = new FabricBuilder(width, speed);
        int hosts = switches * hostsPerSwitch;
        List<FabricBuilder.Node> sw = new ArrayList<>(switches);
        for (int i = 1; i <= switches; i++) {
            sw.add(b.addSwitch("switch-" + FabricBuilder.number(i, switches, 2), radix));
        }
        for (int h = 0; h < hosts; h++) {
            FabricBuilder.Node hca = b.addHca("host" + FabricBuilder.number(h + 1, hosts, 4), 1);
            b.cable(sw.get(h / hostsPerSwitch), h % hostsPerSwitch + 1, hca, 1);
        }
        int toPrevious = hostsPerSwitch + 1;
        int toNext = hostsPerSwitch + linksBetween + 1;
        int pairs = ring ? switches : switches - 1;
        for (int i = 0; i < pairs; i++) {
            FabricBuilder.Node a = sw.get(i);
            FabricBuilder.Node next = sw.get((i + 1) % switches);
            for (int t = 0; t < linksBetween; t++) {
                b.cable(a, toNext + t, next, toPrevious + t);
            }
        }
        return b.build();
    }
}
