package io.ibemu.emulator.fabric;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.ibemu.emulator.topology.DefaultFabric;
import io.ibemu.emulator.topology.Topology;
import io.ibemu.emulator.topology.TopologyParser;
import io.ibemu.emulator.topology.TopologyWriter;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A node_desc is 64 arbitrary bytes (node_desc_store copies them as given): every byte value,
 * quotes, backslashes, line breaks, NULs and broken UTF-8, written as a topology (what `ctl dump`
 * and `ctl topology` print) in either format and read back, gives the same bytes.
 */
class NodeDescriptionRoundTripTest {
    private final Fabric fabric = Fabric.of(DefaultFabric.topology());

    private void roundTrips(List<byte[]> descriptions) throws Exception {
        List<Node> nodes = fabric.nodes();
        for (int i = 0; i < descriptions.size(); i++) {
            nodes.get(i).setDescription(descriptions.get(i));
        }
        Topology now = fabric.currentTopology();
        for (String text : List.of(TopologyWriter.ibnetdiscover(now), TopologyWriter.net(now))) {
            assertFalse(text.contains("\0"), text);
            Fabric back = Fabric.of(TopologyParser.parse("dump", new StringReader(text)));
            for (int i = 0; i < descriptions.size(); i++) {
                Node read = back.node(String.format("0x%016x", nodes.get(i).guid())).orElseThrow();
                assertArrayEquals(nodes.get(i).descriptionBytes(), read.descriptionBytes(),
                        "node " + i + ": " + java.util.HexFormat.of().formatHex(nodes.get(i).descriptionBytes())
                                + " read back as " + java.util.HexFormat.of().formatHex(read.descriptionBytes()));
            }
        }
    }

    @Test
    void everyByteValueRoundTrips() throws Exception {
        int count = fabric.nodes().size();
        for (int b = 0; b < 256; b += count) {
            List<byte[]> d = new java.util.ArrayList<>();
            for (int i = 0; i < count; i++) {
                byte x = (byte) (b + i);
                d.add(new byte[] {x, 'a', x, x, '"', '\\', x});
            }
            roundTrips(d);
        }
    }

    @Test
    void awkwardDescriptionsRoundTrip() throws Exception {
        roundTrips(List.of(
                "quote \" backslash \\ end\\".getBytes(StandardCharsets.UTF_8),
                "line\nbreak\r\n\ttab \\x41 \\\" é 漢".getBytes(StandardCharsets.UTF_8),
                new byte[] {'a', 0, 'b', 0, 0},
                "\"".repeat(64).getBytes(StandardCharsets.UTF_8)));
        roundTrips(List.of(new byte[0], new byte[] {(byte) 0xE6, (byte) 0xBC}, "# lid 3 \"x\" lid 4 4xQDR".getBytes(
                StandardCharsets.UTF_8), " lead and trail ".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void random64ByteDescriptionsRoundTrip() throws Exception {
        Random random = new Random(5);
        for (int round = 0; round < 200; round++) {
            List<byte[]> d = new java.util.ArrayList<>();
            for (int i = 0; i < fabric.nodes().size(); i++) {
                byte[] x = new byte[1 + random.nextInt(64)];
                random.nextBytes(x);
                d.add(x);
            }
            roundTrips(d);
        }
    }
}
