package io.ibemu.emulator.ipoib;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** ND's link-layer address options rewritten between Ethernet's and IPoIB's forms, checksums kept. */
class NeighbourDiscoveryTest {
    private static final HexFormat HEX = HexFormat.of();
    /** A neighbour solicitation from fe80::ff:fe01:2 for fe80::ff:fe02:2 with its source MAC 02:00:01:01:00:02. */
    private static byte[] solicitation() {
        byte[] p = HEX.parseHex("6000000000203aff"
                + "fe80000000000000000000fffe010002" + "ff0200000000000000000001ff020002"
                + "87000000" + "00000000" + "fe80000000000000000000fffe020002"
                + "0101020001010002");
        ArpPacket.put16(p, 42, NeighbourDiscovery.checksum(p, p.length - 40));
        return p;
    }

    @Test
    void aSolicitationsSourceOptionBecomesTwentyFourBytesAndBack() {
        byte[] eth = solicitation();
        assertTrue(NeighbourDiscovery.isNd(eth, 0, eth.length));
        HardwareAddress me = new HardwareAddress(0, 0x48, 0xfe80000000000000L, 0x0011750000000101L);
        byte[] mac = HEX.parseHex("020001010002");
        byte[] ib = NeighbourDiscovery.toIpoib(eth, 0, eth.length, m -> java.util.Arrays.equals(m, mac) ? me : null);
        assertEquals(eth.length + 16, ib.length);
        assertEquals(eth.length + 16 - 40, ArpPacket.u16(ib, 4), "payload length");
        assertEquals("0103" + "0000" + "00000048fe800000000000000011750000000101",
                HEX.formatHex(ib, 64, 88), "type 1, length 3, two zero octets, the 20-byte address");
        assertChecksum(ib);
        byte[] back = NeighbourDiscovery.toEthernet(ib, 0, ib.length, a -> a.equals(me) ? mac : null);
        assertArrayEquals(eth, back);
    }

    @Test
    void anUnknownMacDropsTheOptionAndOtherIcmpPassesAsItIs() {
        byte[] eth = solicitation();
        byte[] ib = NeighbourDiscovery.toIpoib(eth, 0, eth.length, m -> null);
        assertEquals(eth.length - 8, ib.length);
        assertChecksum(ib);
        byte[] echo = solicitation();
        echo[40] = (byte) 128; // echo request
        assertFalse(NeighbourDiscovery.isNd(echo, 0, echo.length));
    }

    private static void assertChecksum(byte[] p) {
        int stored = ArpPacket.u16(p, 42);
        byte[] copy = p.clone();
        ArpPacket.put16(copy, 42, 0);
        assertEquals(NeighbourDiscovery.checksum(copy, copy.length - 40), stored);
    }
}
