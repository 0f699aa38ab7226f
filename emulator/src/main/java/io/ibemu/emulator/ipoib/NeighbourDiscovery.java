package io.ibemu.emulator.ipoib;

import java.util.function.Function;

/**
 * IPv6 neighbour discovery's link-layer address options (RFC 4861 4.6.1) between their two
 * forms: Ethernet's 8-byte option (a 6-byte MAC) on the TAP side, IPoIB's 24-byte option on the
 * fabric (RFC 4391 9.2: type, length 3, two zero octets, the 20-byte address; the kernel's
 * ndisc_fill_addr_option with ndisc_addr_option_pad 2). Rewriting changes the IPv6 payload
 * length and the ICMPv6 checksum, both recomputed. Messages other than ND pass unchanged.
 */
final class NeighbourDiscovery {
    static final int ETHERTYPE = 0x86DD;
    private static final int IPV6_HEADER = 40;
    private static final int ICMPV6 = 58;
    private static final int SOURCE_LL = 1;
    private static final int TARGET_LL = 2;
    private static final int ETHERNET_OPTION = 8;
    private static final int IPOIB_OPTION = 24;

    private NeighbourDiscovery() {
    }

    /** Where a message type's options begin in the ICMPv6 message; -1 for what is not ND. */
    private static int optionsAt(int type) {
        return switch (type) {
            case 133 -> 8; // router solicitation
            case 134 -> 16; // router advertisement
            case 135, 136 -> 24; // neighbour solicitation, advertisement
            case 137 -> 40; // redirect
            default -> -1;
        };
    }

    /** Whether {@code ip} (an IPv6 packet of {@code length} bytes) is ND with options to rewrite. */
    static boolean isNd(byte[] b, int ip, int length) {
        return length >= IPV6_HEADER + 8 && (b[ip] & 0xF0) == 0x60 && (b[ip + 6] & 0xFF) == ICMPV6
                && optionsAt(b[ip + IPV6_HEADER] & 0xFF) >= 0;
    }

    /** The packet with Ethernet options turned into IPoIB ones ({@code hardware} maps a MAC; null drops the option). */
    static byte[] toIpoib(byte[] b, int ip, int length, Function<byte[], HardwareAddress> hardware) {
        return rewrite(b, ip, length, ETHERNET_OPTION, IPOIB_OPTION, option -> {
            byte[] mac = java.util.Arrays.copyOfRange(option, 2, 8);
            HardwareAddress a = hardware.apply(mac);
            if (a == null) {
                return null;
            }
            byte[] out = new byte[IPOIB_OPTION];
            a.encode(out, 4);
            return out;
        });
    }

    /** The packet with IPoIB options turned into Ethernet ones ({@code mac} gives an address's MAC). */
    static byte[] toEthernet(byte[] b, int ip, int length, Function<HardwareAddress, byte[]> mac) {
        return rewrite(b, ip, length, IPOIB_OPTION, ETHERNET_OPTION, option -> {
            byte[] out = new byte[ETHERNET_OPTION];
            System.arraycopy(mac.apply(HardwareAddress.decode(option, 4)), 0, out, 2, 6);
            return out;
        });
    }

    private static byte[] rewrite(byte[] b, int ip, int length, int fromSize, int toSize,
            Function<byte[], byte[]> convert) {
        int icmp = ip + IPV6_HEADER;
        int end = ip + Math.min(length, IPV6_HEADER + ArpPacket.u16(b, ip + 4));
        int first = icmp + optionsAt(b[icmp] & 0xFF);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(length + 32);
        out.write(b, ip, Math.min(first, end) - ip);
        for (int at = first; at + 2 <= end; ) {
            int size = (b[at + 1] & 0xFF) * 8;
            if (size == 0 || at + size > end) {
                return null; // a malformed option: ndisc_parse_options drops the message
            }
            int type = b[at] & 0xFF;
            if ((type == SOURCE_LL || type == TARGET_LL) && size == fromSize) {
                byte[] converted = convert.apply(java.util.Arrays.copyOfRange(b, at, at + size));
                if (converted != null) {
                    converted[0] = (byte) type;
                    converted[1] = (byte) (toSize / 8);
                    out.write(converted, 0, toSize);
                }
            } else {
                out.write(b, at, size);
            }
            at += size;
        }
        byte[] p = out.toByteArray();
        int payload = p.length - IPV6_HEADER;
        ArpPacket.put16(p, 4, payload);
        ArpPacket.put16(p, IPV6_HEADER + 2, 0);
        ArpPacket.put16(p, IPV6_HEADER + 2, checksum(p, payload));
        return p;
    }

    /** The ICMPv6 checksum over the pseudo-header (RFC 8200 8.1) and the message. */
    static int checksum(byte[] p, int payload) {
        long sum = 0;
        for (int i = 8; i < IPV6_HEADER; i += 2) {
            sum += ArpPacket.u16(p, i); // source and destination addresses
        }
        sum += payload >>> 16;
        sum += payload & 0xFFFF;
        sum += ICMPV6;
        for (int i = IPV6_HEADER; i < IPV6_HEADER + payload; i += 2) {
            sum += i + 1 < IPV6_HEADER + payload ? ArpPacket.u16(p, i) : (p[i] & 0xFF) << 8;
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        int c = (int) (~sum & 0xFFFF);
        return c == 0 ? 0xFFFF : c;
    }
}
