package io.ibemu.emulator.ipoib;

import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;

/**
 * The TAP side's stand-in addresses: one locally administered Ethernet MAC per IPoIB hardware
 * address an interface has met, so that the kernel's ARP cache holds a MAC the daemon maps back
 * to the 20-byte address. The MAC is 02, the GUID's low 24 bits and the QPN's low 16 bits,
 * moved on when two addresses would share one. One map per interface, owned by it.
 */
final class MacMap {
    private final Map<Long, HardwareAddress> byMac = new HashMap<>();
    private final Map<HardwareAddress, byte[]> byAddress = new java.util.LinkedHashMap<>();

    /**
     * The MAC standing for {@code address}, made on first use. The flags octet is not part of
     * the identity (a UD sender's flags are not on the wire); a flagged address, as ARP brings
     * it, replaces the one kept.
     */
    synchronized byte[] mac(HardwareAddress address) {
        HardwareAddress identity = address.withoutFlags();
        byte[] known = byAddress.get(identity);
        if (known != null) {
            if (address.flags() != 0) {
                byMac.put(key(known, 0), address);
            }
            return known;
        }
        long mac = 0x02L << 40 | (address.guid() & 0xFFFFFFL) << 16 | address.qpn() & 0xFFFFL;
        while (byMac.containsKey(mac)) {
            mac = 0x02L << 40 | (mac + 1) & 0xFFFFFFFFFFL;
        }
        byte[] b = new byte[6];
        for (int i = 0; i < 6; i++) {
            b[i] = (byte) (mac >>> (40 - 8 * i));
        }
        byMac.put(mac, address);
        byAddress.put(identity, b);
        return b;
    }

    /** The hardware address {@code mac} (6 bytes at {@code offset}) stands for, or null. */
    synchronized HardwareAddress address(byte[] b, int offset) {
        return byMac.get(key(b, offset));
    }

    /** Each MAC and its address, in the order met. */
    synchronized void forEach(java.util.function.BiConsumer<byte[], HardwareAddress> action) {
        byAddress.forEach((identity, mac) -> action.accept(mac.clone(), byMac.get(key(mac, 0))));
    }

    static long key(byte[] b, int offset) {
        long v = 0;
        for (int i = 0; i < 6; i++) {
            v = v << 8 | (b[offset + i] & 0xFF);
        }
        return v;
    }

    static String format(byte[] mac) {
        return HexFormat.ofDelimiter(":").formatHex(mac);
    }
}
