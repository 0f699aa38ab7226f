package io.ibemu.emulator.topology;

import io.ibemu.emulator.fabric.Fabric;
import io.ibemu.emulator.topology.generate.FatTree;
import java.io.BufferedWriter;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Prints how long the preset fat trees take to write, parse and turn into a {@link Fabric}, and
 * the heap they hold; a main, not a test, so timings are read, never asserted. Run from the
 * emulator module after {@code mvn test-compile}:
 * {@code java -Xmx1g -cp target/classes:target/test-classes:$(cat cp.txt) io.ibemu.emulator.topology.TopologyLoadBench [1k 8k 20k]}
 */
public final class TopologyLoadBench {
    private TopologyLoadBench() {
    }

    public static void main(String[] args) throws Exception {
        String[] presets = args.length > 0 ? args : new String[] {"1k", "8k", "20k"};
        Path dir = Files.createTempDirectory("ibemu-bench");
        for (String name : presets) {
            FatTree ft = FatTree.Preset.of(name).fatTree();
            for (boolean ibnetdiscover : new boolean[] {false, true}) {
                Path file = dir.resolve(name + (ibnetdiscover ? ".ibnetdiscover" : ".net"));
                long t0 = System.nanoTime();
                Topology built = ft.build();
                long t1 = System.nanoTime();
                try (BufferedWriter w = Files.newBufferedWriter(file)) {
                    if (ibnetdiscover) {
                        TopologyWriter.ibnetdiscover(built, w);
                    } else {
                        TopologyWriter.net(built, w);
                    }
                }
                long t2 = System.nanoTime();
                built = null;
                for (int round = 1; round <= 3; round++) {
                    long before = usedAfterGc();
                    long p0 = System.nanoTime();
                    Topology t = TopologyParser.parse(file);
                    long p1 = System.nanoTime();
                    long topologyBytes = usedAfterGc() - before;
                    Fabric f = Fabric.of(t);
                    long p2 = System.nanoTime();
                    long fabricBytes = usedAfterGc() - before - topologyBytes;
                    System.out.printf("%-4s %-13s round %d: %6d nodes %6d links, file %5.1f MB; generate %5d ms, "
                            + "write %5d ms, parse %5d ms, Fabric.of %5d ms; heap: topology %5.1f MB, fabric %6.1f MB%n",
                            name, ibnetdiscover ? "ibnetdiscover" : "net", round, t.nodes().size(), t.links().size(),
                            Files.size(file) / 1e6, ms(t1 - t0), ms(t2 - t1), ms(p1 - p0), ms(p2 - p1),
                            topologyBytes / 1e6, fabricBytes / 1e6);
                    if (f.nodes().size() != t.nodes().size()) {
                        throw new IllegalStateException("fabric lost nodes");
                    }
                }
                Files.delete(file);
            }
        }
        Files.delete(dir);
    }

    private static long ms(long nanos) {
        return nanos / 1_000_000;
    }

    private static long usedAfterGc() {
        Runtime r = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return r.totalMemory() - r.freeMemory();
    }
}
