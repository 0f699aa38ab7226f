package io.ibemu.emulator.mad;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Random;
import org.junit.jupiter.api.Test;

class BitsTest {
    @Test
    void bitZeroIsTheMostSignificantBitOfTheFirstByte() {
        byte[] b = new byte[4];
        Bits.set(b, 0, 0, 1, 1);
        assertEquals((byte) 0x80, b[0]);
        Bits.set(b, 0, 12, 4, 0xA);
        assertEquals((byte) 0x0A, b[1]);
        assertEquals(0xA, Bits.get(b, 0, 12, 4));
    }

    @Test
    void unalignedFieldsKeepTheirNeighbours() {
        byte[] b = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF};
        Bits.set(b, 1, 5, 19, 0);
        assertEquals((byte) 0xFF, b[0]);
        assertEquals((byte) 0xF8, b[1]);
        assertEquals((byte) 0x00, b[2]);
        assertEquals((byte) 0x00, b[3]);
        assertEquals((byte) 0xFF, b[4]);
    }

    @Test
    void randomRoundTrips() {
        Random r = new Random(7);
        for (int i = 0; i < 2000; i++) {
            int width = 1 + r.nextInt(57);
            int offset = r.nextInt(64);
            byte[] b = new byte[16];
            r.nextBytes(b);
            byte[] before = b.clone();
            long v = r.nextLong() & Bits.mask(width);
            Bits.set(b, 0, offset, width, v);
            assertEquals(v, Bits.get(b, 0, offset, width));
            for (int bit = 0; bit < 128; bit++) {
                if (bit < offset || bit >= offset + width) {
                    assertEquals(Bits.get(before, 0, bit, 1), Bits.get(b, 0, bit, 1), "bit " + bit);
                }
            }
        }
    }

    @Test
    void fullWidthLong() {
        byte[] b = new byte[8];
        Bits.set(b, 0, 0, 64, 0x8877665544332211L);
        assertEquals(0x8877665544332211L, Bits.get(b, 0, 0, 64));
        assertEquals((byte) 0x88, b[0]);
    }

    @Test
    void layoutsRefuseOverlapsAndOverruns() {
        assertThrows(IllegalStateException.class,
                () -> Layout.of("x", 2, Field.of("a", "A", 0, 9), Field.of("b", "B", 8, 8)));
        assertThrows(IllegalStateException.class, () -> Layout.of("x", 1, Field.of("a", "A", 4, 8)));
    }
}
