package io.ibemu.emulator.topology;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class NodeDescriptionTextTest {
    private static byte[] back(byte[] b) {
        return NodeDescriptionText.bytes(NodeDescriptionText.unquote(NodeDescriptionText.quote(
                NodeDescriptionText.text(b))));
    }

    @Test
    void everySingleBytePairAndTripleRoundTrips() {
        for (int a = 0; a < 256; a++) {
            assertArrayEquals(new byte[] {(byte) a}, back(new byte[] {(byte) a}), "byte " + a);
            for (int b = 0; b < 256; b++) {
                byte[] two = {(byte) a, (byte) b, (byte) 0x80};
                assertArrayEquals(two, back(two), a + " " + b);
            }
        }
    }

    @Test
    void quotedTextIsOneLineWithoutQuotesOrNul() {
        String q = NodeDescriptionText.quote(NodeDescriptionText.text(
                "a\"b\\c\nd\0e\u2028f\té".getBytes(StandardCharsets.UTF_8)));
        assertEquals("a\\\"b\\\\c\\x0ad\\x00e\\xe2\\x80\\xa8f\\x09é", q);
        String broken = NodeDescriptionText.quote(NodeDescriptionText.text(new byte[] {'x', (byte) 0xFF}));
        assertEquals("x\\xff", broken);
        assertTrue(NodeDescriptionText.quote("plain switch 1").equals("plain switch 1"), "plain text unchanged");
    }

    @Test
    void ibnetdiscoversRawBackslashesReadAsTheyAre() {
        // ibnetdiscover prints node_desc raw: a backslash that starts none of \\ \" \xHH stays
        assertEquals("C:\\temp\\", NodeDescriptionText.unquote("C:\\temp\\"));
        assertEquals("\\xZZ \\n \\x4", NodeDescriptionText.unquote("\\xZZ \\n \\x4"));
        assertEquals("A\"\\", NodeDescriptionText.unquote("\\x41\\\"\\\\"));
        assertEquals("é", NodeDescriptionText.unquote("\\xc3\\xa9"), "escaped bytes form one character");
    }
}
