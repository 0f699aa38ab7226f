package io.ibemu.emulator.rdmacm;

import io.ibemu.kernel.Errno;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A socket address as the RDMA CM takes one: {@code sockaddr_in}, {@code sockaddr_in6} or
 * {@code sockaddr_ib} (rdma/ib.h: family, P_Key, flow info, GID, service id and its mask, scope).
 * {@code address} is 4 bytes, 16 bytes, or the 16-byte GID; {@code port} is the IP port or, for
 * AF_IB, the low 16 bits of the service id.
 */
record SockAddr(int family, byte[] address, int port, int pkey, long sid, long sidMask, long scopeId) {
    static final int AF_INET = 2;
    static final int AF_INET6 = 10;
    static final int AF_IB = 27;
    static final int SIZE_IN = 16;
    static final int SIZE_IN6 = 28;
    static final int SIZE_IB = 48;

    /** The any address of {@code family}, port 0. */
    static SockAddr any(int family) {
        return new SockAddr(family, new byte[family == AF_INET ? 4 : 16], 0, 0, 0, 0, 0);
    }

    /**
     * Decodes the address at the start of {@code b} by its family; an unknown family is
     * EAFNOSUPPORT (rdma_bind_addr, rdma_resolve_addr).
     */
    static SockAddr decode(byte[] b) throws Errno {
        ByteBuffer le = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer be = ByteBuffer.wrap(b).order(ByteOrder.BIG_ENDIAN);
        int family = le.getShort(0) & 0xffff;
        return switch (family) {
            case AF_INET -> new SockAddr(family, Arrays.copyOfRange(b, 4, 8), be.getShort(2) & 0xffff, 0, 0, 0, 0);
            case AF_INET6 -> new SockAddr(family, Arrays.copyOfRange(b, 8, 24), be.getShort(2) & 0xffff, 0, 0, 0,
                    le.getInt(24) & 0xffffffffL);
            case AF_IB -> new SockAddr(family, Arrays.copyOfRange(b, 8, 24), (int) (be.getLong(24) & 0xffff),
                    be.getShort(2) & 0xffff, be.getLong(24), be.getLong(32), le.getLong(40));
            default -> throw Errno.of(Errno.EAFNOSUPPORT);
        };
    }

    /** rdma_addr_size: how many bytes of a sockaddr_storage the family uses (0 for another family). */
    static int size(int family) {
        return switch (family) {
            case AF_INET -> SIZE_IN;
            case AF_INET6 -> SIZE_IN6;
            case AF_IB -> SIZE_IB;
            default -> 0;
        };
    }

    int size() {
        return size(family);
    }

    /** The address as the kernel stores it in a sockaddr_storage (zeros past its size). */
    byte[] encode(int room) {
        byte[] b = new byte[room];
        ByteBuffer le = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer be = ByteBuffer.wrap(b).order(ByteOrder.BIG_ENDIAN);
        le.putShort(0, (short) family);
        switch (family) {
            case AF_INET -> {
                be.putShort(2, (short) port);
                System.arraycopy(address, 0, b, 4, 4);
            }
            case AF_INET6 -> {
                be.putShort(2, (short) port);
                System.arraycopy(address, 0, b, 8, 16);
                le.putInt(24, (int) scopeId);
            }
            default -> {
                be.putShort(2, (short) pkey);
                System.arraycopy(address, 0, b, 8, 16);
                be.putLong(24, sid);
                be.putLong(32, sidMask);
                le.putLong(40, scopeId);
            }
        }
        return b;
    }

    /** cma_any_addr: the zero address of its family (for AF_IB: the zero GID). */
    boolean isAny() {
        for (byte x : address) {
            if (x != 0) {
                return false;
            }
        }
        return true;
    }

    /** cma_loopback_addr: 127/8, ::1, or the GID ::1. */
    boolean isLoopback() {
        if (family == AF_INET) {
            return address[0] == 127;
        }
        for (int i = 0; i < 15; i++) {
            if (address[i] != 0) {
                return false;
            }
        }
        return address[15] == 1;
    }

    /** cma_bind_port: the bound port; an AF_IB service id takes it and becomes exact (mask all ones). */
    SockAddr withPort(int p) {
        if (family != AF_IB) {
            return new SockAddr(family, address, p, pkey, sid, sidMask, scopeId);
        }
        return new SockAddr(family, address, p, pkey, (sid & sidMask) | p, ~0L, scopeId);
    }

    SockAddr withAddress(byte[] a) {
        return new SockAddr(family, a.clone(), port, pkey, sid, sidMask, scopeId);
    }

    InetAddress inet() {
        try {
            return InetAddress.getByAddress(address);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    static long gidPrefixOf(byte[] gid) {
        return ByteBuffer.wrap(gid).getLong(0);
    }

    static long gidGuidOf(byte[] gid) {
        return ByteBuffer.wrap(gid).getLong(8);
    }

    static byte[] gid(long prefix, long guid) {
        return ByteBuffer.allocate(16).putLong(prefix).putLong(guid).array();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SockAddr s && s.family == family && Arrays.equals(s.address, address) && s.port == port
                && s.pkey == pkey && s.sid == sid && s.sidMask == sidMask && s.scopeId == scopeId;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(address) * 31 + port;
    }

    @Override
    public String toString() {
        return family == AF_IB ? "ib:" + java.util.HexFormat.of().formatHex(address) + "/" + Long.toHexString(sid)
                : inet().getHostAddress() + ":" + port;
    }
}
