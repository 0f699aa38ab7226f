package io.ibemu.emulator.cli;

import io.ibemu.emulator.topology.LinkSpeed;
import io.ibemu.emulator.topology.LinkWidth;
import io.ibemu.emulator.topology.Topology;
import io.ibemu.emulator.topology.TopologyException;
import io.ibemu.emulator.topology.TopologyParser;
import io.ibemu.emulator.topology.TopologyWriter;
import io.ibemu.emulator.topology.generate.FatTree;
import io.ibemu.emulator.topology.generate.SwitchChain;
import io.ibemu.emulator.view.Drawing;
import io.ibemu.emulator.view.Picture;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

/** {@code topology check FILE}, {@code topology generate KIND ...}, {@code topology convert FILE}. */
@Command(name = "topology", mixinStandardHelpOptions = true, description = "Topology file tools.",
        subcommands = {TopologyCommand.Check.class, TopologyCommand.Generate.class, TopologyCommand.Convert.class,
            TopologyCommand.Draw.class})
final class TopologyCommand implements Runnable {

    @Override
    public void run() {
        System.err.println("usage: topology check FILE | topology generate KIND [OPTION]... | topology convert FILE"
                + " | topology draw FILE [-o OUT.svg]");
    }

    @Command(name = "check", mixinStandardHelpOptions = true,
            description = "Validate an ibsim net file or ibnetdiscover output; exit 0 when it is sound.")
    static final class Check implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "FILE")
        Path file;

        @Override
        public Integer call() {
            Topology t = readOrSay(file);
            if (t == null) {
                return 1;
            }
            System.out.println(file + ": " + t.nodes().size() + " nodes, " + t.links().size() + " links: ok");
            return 0;
        }
    }

    /** Where and how a topology is written: shared by generate and convert. */
    static final class Output {
        enum Format { NET, IBNETDISCOVER }

        @Option(names = "--format", paramLabel = "net|ibnetdiscover", defaultValue = "net",
                converter = FormatConverter.class,
                description = "ibsim net file (node names kept) or ibnetdiscover's output layout (default: net)")
        Format format;

        @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "write to FILE instead of stdout")
        Path output;

        private void writeTo(Topology topology, Writer w) {
            if (format == Format.NET) {
                TopologyWriter.net(topology, w);
            } else {
                TopologyWriter.ibnetdiscover(topology, w);
            }
        }

        static final class FormatConverter implements picocli.CommandLine.ITypeConverter<Format> {
            @Override
            public Format convert(String value) {
                try {
                    return Format.valueOf(value.toUpperCase(Locale.ROOT));
                } catch (IllegalArgumentException e) {
                    throw new picocli.CommandLine.TypeConversionException("expected net or ibnetdiscover, not '"
                            + value + "'");
                }
            }
        }

        int write(Topology topology, String summary) {
            try {
                if (output == null) {
                    // stdout stays open: only flushed
                    Writer w = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 16);
                    writeTo(topology, w);
                    w.flush();
                } else {
                    try (Writer w = Files.newBufferedWriter(output, StandardCharsets.UTF_8)) {
                        writeTo(topology, w);
                    }
                }
            } catch (IOException | java.io.UncheckedIOException e) {
                System.err.println((output == null ? "stdout" : output) + ": " + e.getMessage());
                return 1;
            }
            if (summary != null) {
                System.err.println(summary + (output == null ? "" : "; written to " + output));
            }
            return 0;
        }
    }

    /** Link rate options shared by the generators. */
    static final class Rate {
        @Option(names = "--width", paramLabel = "LANES", defaultValue = "4",
                description = "link width in lanes: 1, 2, 4, 8 or 12 (default: 4)")
        int lanes;

        @Option(names = "--speed", paramLabel = "SPEED", defaultValue = "QDR",
                description = "lane speed: SDR, DDR, QDR, FDR10, FDR, EDR, HDR or NDR (default: QDR)")
        String speed;

        LinkWidth width() {
            try {
                return LinkWidth.ofLanes(lanes);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("no " + lanes + "x link width: expected 1, 2, 4, 8 or 12");
            }
        }

        LinkSpeed speed() {
            try {
                return LinkSpeed.parse(speed);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("no link speed '" + speed
                        + "': expected SDR, DDR, QDR, FDR10, FDR, EDR, HDR or NDR");
            }
        }
    }

    @Command(name = "generate", mixinStandardHelpOptions = true,
            description = "Write a generated fabric (same parameters, same file) for tests and benchmarks.",
            subcommands = {FatTreeCommand.class, SingleSwitchCommand.class, LineCommand.class, RingCommand.class})
    static final class Generate implements Runnable {
        @Override
        public void run() {
            System.err.println("usage: topology generate fat-tree|single-switch|line|ring [OPTION]... "
                    + "(--help on each)");
        }
    }

    /** Builds the generator, reporting a shape that cannot be built as a one-line error. */
    static int generate(Supplier<Topology> build, Supplier<String> summary, Output out) {
        Topology t;
        String s;
        try {
            t = build.get();
            s = summary.get();
        } catch (IllegalArgumentException e) {
            System.err.println("topology generate: " + e.getMessage());
            return 2;
        }
        return out.write(t, s);
    }

    @Command(name = "fat-tree", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"A 2- or 3-level fat tree of switches of one radix; hosts fill the leaves in order.",
                "Presets: 1k (960 hosts, radix 64, 2 levels: 1,006 nodes), 8k (7,000 hosts, radix 36, 3 levels: "
                    + "8,109 nodes), 20k (18,000 hosts, radix 64, 3 levels: 19,651 nodes); options given with a "
                    + "preset override it."})
    static final class FatTreeCommand implements Callable<Integer> {
        @Option(names = "--preset", paramLabel = "1k|8k|20k", description = "a named size")
        String preset;

        @Option(names = "--hosts", paramLabel = "N", description = "number of hosts (HCAs)")
        Integer hosts;

        @Option(names = "--radix", paramLabel = "PORTS", description = "ports per switch, up to 254 (default: 36)")
        Integer radix;

        @Option(names = "--levels", paramLabel = "2|3", description = "switch levels (default: 2)")
        Integer levels;

        @Option(names = "--hosts-per-leaf", paramLabel = "N",
                description = "host ports per leaf, the rest go up (default: radix/2, full bisection)")
        Integer hostsPerLeaf;

        @Option(names = "--hca-ports", paramLabel = "1|2", defaultValue = "1",
                description = "ports per HCA (default: 1); a second port stays uncabled unless --planes 2")
        int hcaPorts;

        @Option(names = "--planes", paramLabel = "1|2", defaultValue = "1",
                description = "2: a second, separate switch tree for every HCA's port 2 (default: 1)")
        int planes;

        @Mixin
        Rate rate;

        @Mixin
        Output out;

        @Override
        public Integer call() {
            FatTree.Preset p;
            try {
                p = preset == null ? null : FatTree.Preset.of(preset);
            } catch (IllegalArgumentException e) {
                System.err.println("topology generate: " + e.getMessage());
                return 2;
            }
            if (p == null && hosts == null) {
                System.err.println("topology generate fat-tree: give --hosts N or --preset 1k|8k|20k");
                return 2;
            }
            int r = radix != null ? radix : p != null ? p.radix : 36;
            int l = levels != null ? levels : p != null ? p.levels : 2;
            int h = hosts != null ? hosts : p.hosts;
            int perLeaf = hostsPerLeaf != null ? hostsPerLeaf : r / 2;
            FatTree[] ft = new FatTree[1];
            return generate(() -> {
                ft[0] = new FatTree(l, r, h, perLeaf, hcaPorts, planes, rate.width(), rate.speed());
                return ft[0].build();
            }, () -> ft[0].summary(), out);
        }
    }

    /** Options of the switch line and ring. */
    static final class ChainOptions {
        @Option(names = "--switches", paramLabel = "N", required = true, description = "number of switches")
        int switches;

        @Option(names = "--hosts-per-switch", paramLabel = "N", defaultValue = "1",
                description = "single-port HCAs on each switch (default: 1)")
        int hostsPerSwitch;

        @Option(names = "--links", paramLabel = "N", defaultValue = "1",
                description = "parallel cables between neighbouring switches (default: 1)")
        int links;

        @Option(names = "--radix", paramLabel = "PORTS", defaultValue = "36",
                description = "ports per switch, up to 254 (default: 36)")
        int radix;
    }

    @Command(name = "single-switch", mixinStandardHelpOptions = true, sortOptions = false,
            description = "One switch with N single-port hosts.")
    static final class SingleSwitchCommand implements Callable<Integer> {
        @Option(names = "--hosts", paramLabel = "N", required = true, description = "number of hosts")
        int hosts;

        @Option(names = "--radix", paramLabel = "PORTS", defaultValue = "36",
                description = "ports of the switch, up to 254 (default: 36)")
        int radix;

        @Mixin
        Rate rate;

        @Mixin
        Output out;

        @Override
        public Integer call() {
            SwitchChain[] c = new SwitchChain[1];
            return generate(() -> {
                c[0] = new SwitchChain(1, false, hosts, 0, radix, rate.width(), rate.speed());
                return c[0].build();
            }, () -> c[0].summary(), out);
        }
    }

    @Command(name = "line", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Switches in a line, each with the same number of hosts.")
    static final class LineCommand implements Callable<Integer> {
        @Mixin
        ChainOptions chain;

        @Mixin
        Rate rate;

        @Mixin
        Output out;

        @Override
        public Integer call() {
            return chain(chain, false, rate, out);
        }
    }

    @Command(name = "ring", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Switches in a ring (at least 3), each with the same number of hosts.")
    static final class RingCommand implements Callable<Integer> {
        @Mixin
        ChainOptions chain;

        @Mixin
        Rate rate;

        @Mixin
        Output out;

        @Override
        public Integer call() {
            return chain(chain, true, rate, out);
        }
    }

    private static int chain(ChainOptions o, boolean ring, Rate rate, Output out) {
        SwitchChain[] c = new SwitchChain[1];
        return generate(() -> {
            c[0] = new SwitchChain(o.switches, ring, o.hostsPerSwitch, o.links, o.radix, rate.width(), rate.speed());
            return c[0].build();
        }, () -> c[0].summary(), out);
    }

    @Command(name = "convert", mixinStandardHelpOptions = true,
            description = "Read an ibsim net file or ibnetdiscover output and write it in either format.")
    static final class Convert implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "FILE")
        Path file;

        @Mixin
        Output out;

        @Override
        public Integer call() {
            Topology t = readOrSay(file);
            return t == null ? 1 : out.write(t, null);
        }
    }

    @Command(name = "draw", mixinStandardHelpOptions = true,
            description = "Draw a topology file with Graphviz: switches by tier (spines on top), hosts at the "
                    + "edge, grouped per leaf above " + Drawing.GROUP_ABOVE + " hosts.")
    static final class Draw implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "FILE")
        Path file;

        @Option(names = {"-o", "--output"}, paramLabel = "OUT",
                description = "OUT.svg, .png or .pdf (laid out by Graphviz's dot), or .dot; default: DOT on stdout")
        Path output;

        @Override
        public Integer call() {
            Topology t = readOrSay(file);
            if (t == null) {
                return 1;
            }
            return DrawingOutput.write(Drawing.dot(Picture.of(file.getFileName().toString(), t)), output);
        }
    }

    /** FILE parsed, or null after one line on stderr saying what is wrong with it. */
    static Topology readOrSay(Path file) {
        try {
            return TopologyParser.parse(file);
        } catch (TopologyException e) {
            System.err.println(e.getMessage());
        } catch (IOException e) {
            System.err.println(file + ": " + e.getMessage());
        }
        return null;
    }
}
