package io.ibemu.emulator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ibemu.emulator.topology.LinkSpeed;
import io.ibemu.emulator.topology.LinkWidth;
import io.ibemu.emulator.topology.Topology;
import io.ibemu.emulator.topology.TopologyParser;
import io.ibemu.emulator.topology.TopologyWriter;
import io.ibemu.emulator.topology.generate.FatTree;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class TopologyCommandTest {
    private String err;

    /** Runs {@code ibemu ARGS} as the jar's main would, keeping what it writes to stderr. */
    private int run(String... args) {
        PrintStream saved = System.err;
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        System.setErr(new PrintStream(buffer, true, StandardCharsets.UTF_8));
        try {
            CommandLine cl = new CommandLine(new Main());
            cl.setErr(new java.io.PrintWriter(System.err, true));
            return cl.execute(args);
        } finally {
            System.setErr(saved);
            err = buffer.toString(StandardCharsets.UTF_8);
        }
    }

    @Test
    void generateWritesTheGeneratorsTopologyInEitherFormat(@TempDir Path dir) throws Exception {
        Path net = dir.resolve("ft.net");
        assertEquals(0, run("topology", "generate", "fat-tree", "--hosts", "30", "--radix", "8", "--levels", "3",
                "--hca-ports", "2", "--planes", "2", "--speed", "hdr", "--width", "4", "-o", net.toString()));
        FatTree expected = new FatTree(3, 8, 30, 4, 2, 2, LinkWidth.X4, LinkSpeed.HDR);
        assertEquals(TopologyWriter.net(expected.build()), Files.readString(net));
        assertTrue(err.startsWith("fat tree of 3 levels, radix 8: 30 hosts"), err);
        assertTrue(err.contains("; written to " + net), err);
        Topology read = TopologyParser.parse(net);
        assertEquals(expected.nodeCount(), read.nodes().size());

        Path ibnd = dir.resolve("ft.ibnetdiscover");
        assertEquals(0, run("topology", "generate", "fat-tree", "--preset", "1k", "--format", "ibnetdiscover",
                "-o", ibnd.toString()));
        assertEquals(TopologyWriter.ibnetdiscover(FatTree.Preset.NODES_1K.fatTree().build()), Files.readString(ibnd));

        Path ring = dir.resolve("ring.net");
        assertEquals(0, run("topology", "generate", "ring", "--switches", "4", "--links", "2", "-o", ring.toString()));
        assertEquals(4 + 4, TopologyParser.parse(ring).nodes().size());
    }

    @Test
    void impossibleShapesAndBadOptionsExit2WithTheReason() {
        assertEquals(2, run("topology", "generate", "fat-tree", "--hosts", "1000", "--radix", "36"));
        assertTrue(err.contains("holds at most 36 leaves (648 hosts): use 3 levels"), err);
        assertEquals(2, run("topology", "generate", "fat-tree", "--radix", "36"));
        assertTrue(err.contains("give --hosts N or --preset 1k|8k|20k"), err);
        assertEquals(2, run("topology", "generate", "single-switch", "--hosts", "4", "--speed", "XDR"));
        assertTrue(err.contains("no link speed 'XDR'"), err);
        assertEquals(2, run("topology", "generate", "fat-tree", "--hosts", "4", "--format", "xml"));
        assertTrue(err.contains("expected net or ibnetdiscover, not 'xml'"), err);
    }

    @Test
    void convertAndCheck(@TempDir Path dir) throws Exception {
        Path in = dir.resolve("in.net");
        Files.writeString(in, "Switch 4 \"s\"\n[1] \"h\"[1] w=2 s=7 e=3\nHca 1 \"h\" # \"h HCA-1\"\n");
        Path out = dir.resolve("out.ibnetdiscover");
        assertEquals(0, run("topology", "convert", in.toString(), "--format", "ibnetdiscover", "-o", out.toString()));
        assertTrue(Files.readString(out).contains("\t\t# \"h HCA-1\" lid 0 4xEDR\n"), Files.readString(out));
        assertEquals(0, run("topology", "check", out.toString()));

        Files.writeString(in, "Switch 4 \"s\"\n[1] \"h\"[1] w=2 s=7 e=3\nHca 1 \"h\"\n[1] \"s\"[2]\n");
        assertEquals(1, run("topology", "check", in.toString()));
        assertTrue(err.startsWith(in + ":4: "), err);
        assertEquals(1, run("topology", "convert", in.toString()));
    }
}
