package io.ibemu.emulator.ipoib;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ibemu.emulator.topology.IpoibAddress;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** The 20-byte hardware address, ARP in both widths, stand-in MACs and the address plan. */
class IpoibCodecTest {
    private static final HexFormat HEX = HexFormat.of();

    @Test
    void hardwareAddressIsFlagsQpnThenGid() {
        HardwareAddress a = new HardwareAddress(0, 0x000048, 0xfe80000000000000L, 0x0011750000000101L);
        byte[] b = new byte[HardwareAddress.LENGTH];
        a.encode(b, 0);
        assertEquals("00000048fe800000000000000011750000000101", HEX.formatHex(b));
        assertEquals(a, HardwareAddress.decode(b, 0));
        assertEquals("00:00:00:48:fe:80:00:00:00:00:00:00:00:11:75:00:00:00:01:01", a.toString());
    }

    @Test
    void arpIsRewrittenBetweenSixAndTwentyByteHardwareAddresses() {
        // an Ethernet ARP request for 169.254.77.2 from 169.254.77.1
        byte[] eth = HEX.parseHex("0001080006040001" + "020001010002" + "a9fe4d01" + "000000000000" + "a9fe4d02");
        ArpPacket p = ArpPacket.decode(eth, 0, eth.length);
        assertEquals(ArpPacket.HTYPE_ETHERNET, p.hardwareType());
        assertEquals(1, p.operation());
        byte[] sender = new byte[HardwareAddress.LENGTH];
        new HardwareAddress(0, 0x48, 0xfe80000000000000L, 0x0011750000000101L).encode(sender, 0);
        ArpPacket ib = p.withHardware(ArpPacket.HTYPE_INFINIBAND, sender, new byte[HardwareAddress.LENGTH]);
        byte[] wire = new byte[ib.length()];
        assertEquals(8 + 2 * (20 + 4), ib.encode(wire, 0));
        assertEquals("0020080014040001", HEX.formatHex(wire, 0, 8), "htype 32, IPv4, hlen 20, plen 4, request");
        assertArrayEquals(sender, java.util.Arrays.copyOfRange(wire, 8, 28));
        assertEquals("a9fe4d01", HEX.formatHex(wire, 28, 32));
        assertEquals("a9fe4d02", HEX.formatHex(wire, 52, 56));
        ArpPacket back = ArpPacket.decode(wire, 0, wire.length);
        assertArrayEquals(p.targetIp(), back.targetIp());
        assertNull(ArpPacket.decode(wire, 0, wire.length - 1), "truncated");
    }

    @Test
    void standInMacsAreStableDistinctAndMapBack() {
        MacMap macs = new MacMap();
        HardwareAddress a = new HardwareAddress(0, 0x48, 0xfe80000000000000L, 0x0011750000000101L);
        // same GUID low 24 bits and QPN low 16 bits: a collision that must move on
        HardwareAddress b = new HardwareAddress(0, 0x10048, 0xfe80000000000000L, 0x0022750000000101L);
        byte[] ma = macs.mac(a);
        byte[] mb = macs.mac(b);
        assertEquals("02:00:01:01:00:48", MacMap.format(ma));
        assertNotEquals(MacMap.format(ma), MacMap.format(mb));
        assertArrayEquals(ma, macs.mac(a));
        assertEquals(a, macs.address(ma, 0));
        assertEquals(b, macs.address(mb, 0));
        assertEquals(0x02, ma[0] & 0x03, "locally administered, unicast");
    }

    @Test
    void theTopologysAddressesWinAndTheNetworkNumbersTheRestByPort() throws java.io.IOException {
        Ipoib.Network n = Ipoib.Network.parse("169.254.77.0/24");
        java.util.Optional<IpoibAddress> none = java.util.Optional.empty();
        assertEquals(java.util.List.of("169.254.77.1/24", "10.5.0.7/16", "169.254.77.3/24"), Ipoib.addresses(n,
                java.util.List.of(new Ipoib.PortAddress("\"a\"[1]", none),
                        new Ipoib.PortAddress("\"b\"[1]", java.util.Optional.of(IpoibAddress.parse("10.5.0.7/16"))),
                        new Ipoib.PortAddress("\"c\"[1]", none))));
        java.io.IOException e = assertThrows(java.io.IOException.class, () -> Ipoib.addresses(n,
                java.util.List.of(new Ipoib.PortAddress("\"a\"[1]", none), new Ipoib.PortAddress("\"b\"[1]",
                        java.util.Optional.of(IpoibAddress.parse("169.254.77.1/24"))))));
        assertEquals("IPoIB address 169.254.77.1 is both \"a\"[1]'s and \"b\"[1]'s (from the topology's ipoib= or "
                + "--ipoib-net 169.254.77.0/24): change the topology's ipoib= or --ipoib-net", e.getMessage());
        Ipoib.Network tiny = Ipoib.Network.parse("10.0.0.0/30");
        assertEquals(java.util.List.of("10.9.0.1/8", "10.0.0.2/30"), Ipoib.addresses(tiny, java.util.List.of(
                new Ipoib.PortAddress("\"a\"[1]", java.util.Optional.of(IpoibAddress.parse("10.9.0.1/8"))),
                new Ipoib.PortAddress("\"a\"[2]", none))), "a /30 has room for two ports");
        e = assertThrows(java.io.IOException.class, () -> Ipoib.addresses(tiny, java.util.List.of(
                new Ipoib.PortAddress("\"a\"[1]", none), new Ipoib.PortAddress("\"a\"[2]", none),
                new Ipoib.PortAddress("\"a\"[3]", none))));
        assertTrue(e.getMessage().contains("has room for 2 addresses, port \"a\"[3]"), e.getMessage());
    }

    @Test
    void theNetworkGivesHostsInOrderAndRefusesWhatIsNotOne() {
        Ipoib.Network n = Ipoib.Network.parse("169.254.77.9/24");
        assertEquals("169.254.77.1/24", n.host(1));
        assertEquals("169.254.77.2/24", n.host(2));
        assertEquals(254, n.hosts());
        for (String bad : new String[] {"169.254.77.0", "10.0.0.0/31", "fe80::/64", "host/24", "10.0.0.0/x"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Ipoib.Network.parse(bad));
            assertEquals(true, e.getMessage().contains("--ipoib-net " + bad), e.getMessage());
        }
    }

    /** create_child's sscanf("%i"): hex, octal and decimal, leading blanks and a sign, stopping at the first non-digit. */
    @Test
    void createChildParsesAsSscanfPercentI() {
        assertEquals(0x8001L, NetdevSysfs.scanInteger("0x8001\n"));
        assertEquals(32769L, NetdevSysfs.scanInteger("  32769"));
        assertEquals(64L, NetdevSysfs.scanInteger("0100"));
        assertEquals(-1L, NetdevSysfs.scanInteger("-1\n"));
        assertEquals(12L, NetdevSysfs.scanInteger("12abc"));
        assertNull(NetdevSysfs.scanInteger("junk\n"));
        assertNull(NetdevSysfs.scanInteger("\n"));
    }

    /** ipoib_main.c's broadcast address: the IPv4 broadcast MGID of the partition, after 00:ff:ff:ff (QPN 0xffffff). */
    @Test
    void broadcastAddressCarriesThePartition() {
        assertEquals("00:ff:ff:ff:ff:12:40:1b:80:01:00:00:00:00:00:00:ff:ff:ff:ff", NetdevSysfs.broadcast(0x8001));
    }

    /** A UD sender's flags are not on the wire: its MAC is the one ARP's flagged address got, which stays the one kept. */
    @Test
    void macMapIgnoresTheFlagsOctetAndKeepsArpsFlaggedAddress() {
        MacMap macs = new MacMap();
        HardwareAddress fromArp = new HardwareAddress(0x80, 0x48, 0xfe80000000000000L, 0x0011750000000201L);
        byte[] mac = macs.mac(fromArp);
        assertArrayEquals(mac, macs.mac(new HardwareAddress(0, 0x48, 0xfe80000000000000L, 0x0011750000000201L)));
        assertEquals(fromArp, macs.address(mac, 0));
    }
}
