package io.ibemu.emulator.ipoib;

import java.util.Arrays;

/**
 * An IPv4 ARP packet (RFC 826) with hardware addresses of either length: 6 bytes as Ethernet
 * (htype 1) carries them on the TAP side, 20 as IPoIB (htype 32, RFC 4391 9.1) on the fabric.
 */
record ArpPacket(int hardwareType, int operation, byte[] senderHardware, byte[] senderIp, byte[] targetHardware,
        byte[] targetIp) {
    static final int ETHERTYPE = 0x0806;
    static final int HTYPE_ETHERNET = 1;
    static final int HTYPE_INFINIBAND = 32;
    private static final int IPV4 = 0x0800;

    /** The packet at {@code offset}, or null when it is not IPv4 ARP with consistent lengths. */
    static ArpPacket decode(byte[] b, int offset, int length) {
        if (length < 8) {
            return null;
        }
        int htype = u16(b, offset);
        int ptype = u16(b, offset + 2);
        int hlen = b[offset + 4] & 0xFF;
        int plen = b[offset + 5] & 0xFF;
        if (ptype != IPV4 || plen != 4 || length < 8 + 2 * (hlen + plen)) {
            return null;
        }
        int p = offset + 8;
        byte[] sha = Arrays.copyOfRange(b, p, p + hlen);
        byte[] spa = Arrays.copyOfRange(b, p + hlen, p + hlen + 4);
        byte[] tha = Arrays.copyOfRange(b, p + hlen + 4, p + 2 * hlen + 4);
        byte[] tpa = Arrays.copyOfRange(b, p + 2 * hlen + 4, p + 2 * hlen + 8);
        return new ArpPacket(htype, u16(b, offset + 6), sha, spa, tha, tpa);
    }

    int length() {
        return 8 + 2 * (senderHardware.length + 4);
    }

    /** Writes the packet at {@code offset}; returns its length. */
    int encode(byte[] b, int offset) {
        int hlen = senderHardware.length;
        put16(b, offset, hardwareType);
        put16(b, offset + 2, IPV4);
        b[offset + 4] = (byte) hlen;
        b[offset + 5] = 4;
        put16(b, offset + 6, operation);
        int p = offset + 8;
        System.arraycopy(senderHardware, 0, b, p, hlen);
        System.arraycopy(senderIp, 0, b, p + hlen, 4);
        System.arraycopy(targetHardware, 0, b, p + hlen + 4, hlen);
        System.arraycopy(targetIp, 0, b, p + 2 * hlen + 4, 4);
        return length();
    }

    ArpPacket withHardware(int htype, byte[] sender, byte[] target) {
        return new ArpPacket(htype, operation, sender, senderIp, target, targetIp);
    }

    static int u16(byte[] b, int offset) {
        return (b[offset] & 0xFF) << 8 | b[offset + 1] & 0xFF;
    }

    static void put16(byte[] b, int offset, int v) {
        b[offset] = (byte) (v >> 8);
        b[offset + 1] = (byte) v;
    }
}
