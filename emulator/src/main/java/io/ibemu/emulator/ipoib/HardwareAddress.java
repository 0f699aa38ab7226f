package io.ibemu.emulator.ipoib;

import java.util.HexFormat;

/**
 * The 20-byte IPoIB link-layer address (RFC 4391 9.1.1): a reserved/flags octet, the 24-bit
 * QPN of the interface's UD QP, then the port GID. ARP carries it whole.
 */
record HardwareAddress(int flags, int qpn, long gidPrefix, long guid) {
    static final int LENGTH = 20;

    static HardwareAddress decode(byte[] b, int offset) {
        int flags = b[offset] & 0xFF;
        int qpn = (b[offset + 1] & 0xFF) << 16 | (b[offset + 2] & 0xFF) << 8 | b[offset + 3] & 0xFF;
        return new HardwareAddress(flags, qpn, longAt(b, offset + 4), longAt(b, offset + 12));
    }

    void encode(byte[] b, int offset) {
        b[offset] = (byte) flags;
        b[offset + 1] = (byte) (qpn >> 16);
        b[offset + 2] = (byte) (qpn >> 8);
        b[offset + 3] = (byte) qpn;
        putLong(b, offset + 4, gidPrefix);
        putLong(b, offset + 12, guid);
    }

    HardwareAddress withoutFlags() {
        return flags == 0 ? this : new HardwareAddress(0, qpn, gidPrefix, guid);
    }

    boolean isZero() {
        return qpn == 0 && gidPrefix == 0 && guid == 0;
    }

    static long longAt(byte[] b, int offset) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = v << 8 | (b[offset + i] & 0xFF);
        }
        return v;
    }

    static void putLong(byte[] b, int offset, long v) {
        for (int i = 0; i < 8; i++) {
            b[offset + i] = (byte) (v >>> (56 - 8 * i));
        }
    }

    /** As ip(8) prints an infiniband address: twenty colon-separated octets. */
    @Override
    public String toString() {
        byte[] b = new byte[LENGTH];
        encode(b, 0);
        return HexFormat.ofDelimiter(":").formatHex(b);
    }
}
