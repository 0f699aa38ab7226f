package io.ibemu.emulator.capture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class PcapTest {
    private static final byte[] PACKET = {1, 2, 3, 4, 5, 6};
    /** 2026-11-27 10:00:00.5 UTC in ns. */
    private static final long WHEN = 1_795_773_600_500_000_000L;

    private static ByteBuffer write(Pcap.Linktype type, boolean outbound) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new Pcap(out, type).write(new Frame(WHEN, outbound, PACKET));
        return ByteBuffer.wrap(out.toByteArray()).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Test
    void theFileHeaderSaysNanosecondsAndTheLinkType() throws IOException {
        ByteBuffer b = write(Pcap.Linktype.INFINIBAND, true);
        assertEquals(0xA1B23C4D, b.getInt(0), "nanosecond magic");
        assertEquals(2, b.getShort(4));
        assertEquals(4, b.getShort(6));
        assertEquals(247, b.getInt(20), "LINKTYPE_INFINIBAND");
        assertEquals(197, write(Pcap.Linktype.ERF, true).getInt(20), "LINKTYPE_ERF");
    }

    @Test
    void aBareRecordHoldsThePacketFromItsLrh() throws IOException {
        ByteBuffer b = write(Pcap.Linktype.INFINIBAND, true);
        assertEquals(1_795_773_600, b.getInt(24));
        assertEquals(500_000_000, b.getInt(28));
        assertEquals(PACKET.length, b.getInt(32));
        assertEquals(PACKET.length, b.getInt(36));
        assertArrayEquals(PACKET, Arrays.copyOfRange(b.array(), 40, 40 + PACKET.length));
    }

    @Test
    void anErfRecordWrapsItWithTypeInfinibandAndTheDirection() throws IOException {
        ByteBuffer b = write(Pcap.Linktype.ERF, false);
        assertEquals(16 + PACKET.length, b.getInt(32), "the ERF header is part of the record");
        long ts = b.getLong(40);
        assertEquals(1_795_773_600L, ts >>> 32, "seconds in the high word");
        assertEquals(0x80000000L, ts & 0xFFFFFFFFL, "half a second as a binary fraction");
        ByteBuffer e = b.duplicate().order(ByteOrder.BIG_ENDIAN);
        assertEquals(21, e.get(48), "ERF type INFINIBAND");
        assertEquals(0x04 | 1, e.get(49), "varying length, interface 1: received");
        assertEquals(16 + PACKET.length, e.getShort(50), "record length");
        assertEquals(PACKET.length, e.getShort(54), "wire length");
        assertArrayEquals(PACKET, Arrays.copyOfRange(b.array(), 56, 56 + PACKET.length));
        assertEquals(0x04, write(Pcap.Linktype.ERF, true).get(49), "interface 0: sent");
    }

    @Test
    void anUnknownLinkTypeIsRefusedWithTheChoices() {
        String m = assertThrows(IllegalArgumentException.class, () -> Pcap.Linktype.parse("ether")).getMessage();
        assertEquals(true, m.contains("ERF") && m.contains("INFINIBAND"), m);
        assertEquals(Pcap.Linktype.INFINIBAND, Pcap.Linktype.parse("infiniband"));
    }
}
