package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Emulating what ibnetdiscover printed gives the same ibnetdiscover output back: the same
 * nodes, GUIDs, descriptions, port numbers and links, and the link widths and speeds its
 * comments carry, which iblinkinfo then reports as each port's active rate.
 */
class RoundTripTest {
    static final Path FILE = Ibemu.root().resolve("integration-tests/src/test/resources/topology/round-trip.ibnd");

    /** Node blocks (vendid ... last port line) without the comment header, as a set: discovery order may differ. */
    static Set<String> blocks(String ibnetdiscover) {
        Set<String> blocks = new TreeSet<>();
        for (String block : ibnetdiscover.split("\n\\s*\n")) {
            StringBuilder kept = new StringBuilder();
            for (String line : block.split("\n")) {
                if (!line.startsWith("#") && !line.isBlank()) {
                    kept.append(line.stripTrailing()).append('\n');
                }
            }
            if (kept.length() > 0) {
                blocks.add(kept.toString());
            }
        }
        return blocks;
    }

    @Test
    void ibnetdiscoverGivesBackTheFileItWasEmulatedFrom() throws IOException {
        try (Ibemu ib = Ibemu.startWithTopology(FILE)) {
            Set<String> expected = blocks(Files.readString(FILE));
            assertEquals(7, expected.size(), "3 switches and 4 HCAs in the file");
            Set<String> got = blocks(ib.exec("ibnetdiscover").assertOk().stdout());
            assertEquals(expected, got);

            String links = ib.exec("iblinkinfo").assertOk().stdout();
            assertTrue(links.contains("4X        53.125 Gbps"), "4xHDR: " + links);
            assertTrue(links.contains("1X      25.78125 Gbps"), "1xEDR: " + links);
            assertTrue(links.contains("4X       14.0625 Gbps"), "4xFDR: " + links);
            assertTrue(links.contains("4X        106.25 Gbps"), "4xNDR: " + links);
            assertTrue(links.contains("4X          10.0 Gbps"), "4xQDR: " + links);
        }
    }
}
