package io.ibemu.emulator.rdmacm;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * {@code struct cma_hdr} (cma.c): the 36 bytes the RDMA CM puts before the user's private data
 * in a REQ or SIDR_REQ of the IP port spaces — version 0, the IP version in the high nibble, the
 * source port, then the source and destination addresses (IPv4 in the last 4 of 16 bytes).
 */
record CmaHeader(int ipVersion, int port, byte[] src, byte[] dst) {
    static final int SIZE = 36;
    static final int VERSION = 0x00;

    /** cma_format_hdr for an id whose addresses are {@code src} and {@code dst}. */
    static CmaHeader of(SockAddr src, SockAddr dst) {
        return new CmaHeader(src.family() == SockAddr.AF_INET ? 4 : 6, src.port(), src.address(), dst.address());
    }

    byte[] encode() {
        byte[] b = new byte[SIZE];
        b[0] = VERSION;
        b[1] = (byte) (ipVersion << 4);
        ByteBuffer.wrap(b).putShort(2, (short) port);
        int at = ipVersion == 4 ? 12 : 0;
        System.arraycopy(src, 0, b, 4 + at, src.length);
        System.arraycopy(dst, 0, b, 20 + at, dst.length);
        return b;
    }

    /** cma_check_hdr's view of a received header; null when it is not one (version, IP version). */
    static CmaHeader decode(byte[] b) {
        if (b.length < SIZE || b[0] != VERSION) {
            return null;
        }
        int ip = (b[1] & 0xff) >> 4;
        if (ip != 4 && ip != 6) {
            return null;
        }
        int port = ByteBuffer.wrap(b).getShort(2) & 0xffff;
        int at = ip == 4 ? 12 : 0;
        int len = ip == 4 ? 4 : 16;
        return new CmaHeader(ip, port, Arrays.copyOfRange(b, 4 + at, 4 + at + len),
                Arrays.copyOfRange(b, 20 + at, 20 + at + len));
    }

    int family() {
        return ipVersion == 4 ? SockAddr.AF_INET : SockAddr.AF_INET6;
    }
}
