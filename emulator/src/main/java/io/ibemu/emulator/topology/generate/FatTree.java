package io.ibemu.emulator.topology.generate;

import io.ibemu.emulator.topology.LinkSpeed;
import io.ibemu.emulator.topology.LinkWidth;
import io.ibemu.emulator.topology.Topology;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A folded-Clos ("fat tree") fabric of switches of one radix, 2 or 3 levels, built
 * deterministically (see {@link FabricBuilder} for GUIDs and names).
 * <ul>
 * <li>Leaves ("leaf-001") have {@code hostsPerLeaf} host ports (1..n), the rest go up. Hosts fill
 * leaves in order: host h on leaf h / hostsPerLeaf.</li>
 * <li>2 levels: every leaf reaches every spine ("spine-01") with the same number of parallel
 * links; as few spines as the spines' ports allow, so a small tree gets several parallel links
 * per leaf-spine pair.</li>
 * <li>3 levels: leaves are grouped in pods of at most radix/2; in a pod every leaf reaches every
 * spine ("spine-001") with the same number of links; a spine has as many links up as down;
 * spine number a of every pod reaches every core ("core-01") of core group a, again with
 * parallel links where the cores' ports allow.</li>
 * <li>{@code hcaPorts} 1 or 2: with one plane a second HCA port stays without a cable; with
 * {@code planes} 2 the whole switch tree is built twice ("p2-leaf-001"...) and port 2 of each
 * HCA goes to the second one, as in dual-rail clusters.</li>
 * </ul>
 */
public record FatTree(int levels, int radix, int hosts, int hostsPerLeaf, int hcaPorts, int planes,
                      LinkWidth width, LinkSpeed speed) {

    /** Named sizes for tests and benchmarks; nodes = switches + HCAs. */
    public enum Preset {
        /** 960 hosts, radix 64, 2 levels: 1,006 nodes (ibsim's peer measurement used 1,082). */
        NODES_1K(2, 64, 960),
        /** 7,000 hosts, radix 36, 3 levels: 8,109 nodes (the peer: 8,220). */
        NODES_8K(3, 36, 7000),
        /** 18,000 hosts, radix 64, 3 levels: 19,651 nodes. */
        NODES_20K(3, 64, 18000);

        public final int levels;
        public final int radix;
        public final int hosts;

        Preset(int levels, int radix, int hosts) {
            this.levels = levels;
            this.radix = radix;
            this.hosts = hosts;
        }

        /** "1k", "8k", "20k". */
        public String label() {
            return name().substring("NODES_".length()).toLowerCase(Locale.ROOT);
        }

        public static Preset of(String label) {
            for (Preset p : values()) {
                if (p.label().equalsIgnoreCase(label)) {
                    return p;
                }
            }
            throw new IllegalArgumentException("no preset '" + label + "': expected 1k, 8k or 20k");
        }

        public FatTree fatTree() {
            return FatTree.of(levels, radix, hosts);
        }
    }

    public FatTree {
        if (levels != 2 && levels != 3) {
            throw new IllegalArgumentException("a fat tree here has 2 or 3 levels, not " + levels);
        }
        if (radix < 2 || radix > 254) {
            throw new IllegalArgumentException("switch radix must be 2..254 ports, not " + radix);
        }
        if (hosts < 1) {
            throw new IllegalArgumentException("at least one host, not " + hosts);
        }
        if (hostsPerLeaf < 1 || hostsPerLeaf >= radix) {
            throw new IllegalArgumentException("hosts per leaf must be 1.." + (radix - 1)
                    + " (a leaf needs a port up), not " + hostsPerLeaf);
        }
        if (hcaPorts != 1 && hcaPorts != 2) {
            throw new IllegalArgumentException("HCAs have 1 or 2 ports, not " + hcaPorts);
        }
        if (planes != 1 && planes != 2 || planes > hcaPorts) {
            throw new IllegalArgumentException("planes must be 1, or 2 with 2-port HCAs; got " + planes
                    + " with " + hcaPorts + "-port HCAs");
        }
        if (width == null || speed == null) {
            throw new IllegalArgumentException("a link width and speed are needed");
        }
        shape(levels, radix, hosts, hostsPerLeaf);
    }

    /** Full bisection (half of each leaf's ports down), single-port HCAs, one plane, 4x QDR. */
    public static FatTree of(int levels, int radix, int hosts) {
        return new FatTree(levels, radix, hosts, radix / 2, 1, 1, LinkWidth.X4, LinkSpeed.QDR);
    }

    /** Switch counts and link multiplicities of one plane. */
    public record Shape(int leaves, int pods, int leavesPerPod, int spinesPerPod, int leafSpineLinks,
                        int coreGroups, int coresPerGroup, int spineCoreLinks) {
        public int spines() {
            return pods * spinesPerPod;
        }

        public int cores() {
            return coreGroups * coresPerGroup;
        }

        public int switches() {
            return leaves + spines() + cores();
        }
    }

    public Shape shape() {
        return shape(levels, radix, hosts, hostsPerLeaf);
    }

    private static Shape shape(int levels, int radix, int hosts, int hostsPerLeaf) {
        int up = radix - hostsPerLeaf;
        int leaves = ceil(hosts, hostsPerLeaf);
        if (levels == 2) {
            if (leaves > radix) {
                throw new IllegalArgumentException(String.format("%d hosts need %d leaves, but a 2-level fat tree of "
                        + "radix %d holds at most %d leaves (%d hosts): use 3 levels", hosts, leaves, radix, radix,
                        radix * hostsPerLeaf));
            }
            // spines share their ports among all leaves: the fewest spines that fit, dividing the uplinks evenly
            int spines = FabricBuilder.divisorAtLeast(up, ceil(leaves * up, radix));
            return new Shape(leaves, 1, leaves, spines, up / spines, 0, 0, 0);
        }
        int half = radix / 2;
        int pods = ceil(leaves, half);
        if (pods > radix) {
            throw new IllegalArgumentException(String.format("%d hosts need %d pods of %d leaves, but a 3-level fat "
                    + "tree of radix %d holds at most %d pods (%d hosts)", hosts, pods, half, radix, radix,
                    radix * half * hostsPerLeaf));
        }
        int leavesPerPod = ceil(leaves, pods);
        int spinesPerPod = FabricBuilder.divisorAtLeast(up, ceil(leavesPerPod * up, half));
        int leafSpineLinks = up / spinesPerPod;
        int spineUp = leavesPerPod * leafSpineLinks;
        int coresPerGroup = FabricBuilder.divisorAtLeast(spineUp, ceil(pods * spineUp, radix));
        return new Shape(leaves, pods, leavesPerPod, spinesPerPod, leafSpineLinks, spinesPerPod, coresPerGroup,
                spineUp / coresPerGroup);
    }

    public int nodeCount() {
        return hosts + planes * shape().switches();
    }

    /** One line for a user: levels, counts, parallel links, total nodes. */
    public String summary() {
        Shape s = shape();
        String tiers = levels == 2
                ? String.format("%d leaves, %d spines, %d link(s) per leaf-spine pair", s.leaves(), s.spines(),
                        s.leafSpineLinks())
                : String.format("%d pods: %d leaves, %d spines, %d cores, %d link(s) per leaf-spine and %d per "
                        + "spine-core pair", s.pods(), s.leaves(), s.spines(), s.cores(), s.leafSpineLinks(),
                        s.spineCoreLinks());
        return String.format("fat tree of %d levels, radix %d: %d hosts (%d per leaf, %d-port HCAs), %s%s; "
                + "%d nodes, %dx %s", levels, radix, hosts, hostsPerLeaf, hcaPorts, tiers,
                planes == 2 ? ", twice (2 planes)" : "", nodeCount(), width.lanes(), speed);
    }

    public Topology build() {
        Shape s = shape();
        FabricBuilder b = new FabricBuilder(width, speed);
        List<FabricBuilder.Node> hcas = new ArrayList<>(hosts);
        for (int h = 1; h <= hosts; h++) {
            hcas.add(b.addHca("host" + FabricBuilder.number(h, hosts, 4), hcaPorts));
        }
        for (int plane = 1; plane <= planes; plane++) {
            String prefix = plane == 1 ? "" : "p" + plane + "-";
            List<FabricBuilder.Node> leaves = new ArrayList<>(s.leaves());
            for (int l = 0; l < s.leaves(); l++) {
                leaves.add(b.addSwitch(prefix + "leaf-" + FabricBuilder.number(l + 1, s.leaves(), 3), radix));
            }
            for (int h = 0; h < hosts; h++) {
                b.cable(hcas.get(h), plane, leaves.get(h / hostsPerLeaf), h % hostsPerLeaf + 1);
            }
            if (levels == 2) {
                twoLevels(b, s, prefix, leaves);
            } else {
                threeLevels(b, s, prefix, leaves);
            }
        }
        return b.build();
    }

    private void twoLevels(FabricBuilder b, Shape s, String prefix, List<FabricBuilder.Node> leaves) {
        int p = s.leafSpineLinks();
        for (int sp = 0; sp < s.spines(); sp++) {
            FabricBuilder.Node spine = b.addSwitch(prefix + "spine-" + FabricBuilder.number(sp + 1, s.spines(), 2),
                    radix);
            for (int l = 0; l < leaves.size(); l++) {
                for (int t = 0; t < p; t++) {
                    b.cable(leaves.get(l), hostsPerLeaf + sp * p + t + 1, spine, l * p + t + 1);
                }
            }
        }
    }

    private void threeLevels(FabricBuilder b, Shape s, String prefix, List<FabricBuilder.Node> leaves) {
        int p1 = s.leafSpineLinks();
        int p2 = s.spineCoreLinks();
        int spineDown = s.leavesPerPod() * p1;
        List<List<FabricBuilder.Node>> spines = new ArrayList<>();
        for (int pod = 0; pod < s.pods(); pod++) {
            List<FabricBuilder.Node> inPod = new ArrayList<>();
            for (int a = 0; a < s.spinesPerPod(); a++) {
                int n = pod * s.spinesPerPod() + a + 1;
                FabricBuilder.Node spine = b.addSwitch(prefix + "spine-" + FabricBuilder.number(n, s.spines(), 3),
                        radix);
                inPod.add(spine);
                for (int j = 0; j < s.leavesPerPod(); j++) {
                    int l = pod * s.leavesPerPod() + j;
                    if (l >= leaves.size()) {
                        break;
                    }
                    for (int t = 0; t < p1; t++) {
                        b.cable(leaves.get(l), hostsPerLeaf + a * p1 + t + 1, spine, j * p1 + t + 1);
                    }
                }
            }
            spines.add(inPod);
        }
        for (int g = 0; g < s.coreGroups(); g++) {
            for (int c = 0; c < s.coresPerGroup(); c++) {
                int n = g * s.coresPerGroup() + c + 1;
                FabricBuilder.Node core = b.addSwitch(prefix + "core-" + FabricBuilder.number(n, s.cores(), 2), radix);
                for (int pod = 0; pod < s.pods(); pod++) {
                    for (int t = 0; t < p2; t++) {
                        b.cable(spines.get(pod).get(g), spineDown + c * p2 + t + 1, core, pod * p2 + t + 1);
                    }
                }
            }
        }
    }

    private static int ceil(int a, int b) {
        return (a + b - 1) / b;
    }
}
