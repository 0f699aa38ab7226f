package io.ibemu.emulator.ipoib;

import java.io.IOException;

/**
 * A TAP interface of the daemon's network namespace (drivers/net/tun.c): Ethernet frames the
 * kernel transmits are read here, frames written here are what the interface receives. The
 * stand-in for the IPoIB netdev, which a process cannot create (see docs/compatibility.md).
 */
final class TapDevice implements AutoCloseable {
    /** TUNSETIFF = _IOW('T', 202, int); TUNSETCARRIER = _IOW('T', 226, int); TUNGETDEVNETNS = _IO('T', 227). */
    private static final long TUNSETIFF = 0x400454caL;
    private static final long TUNSETCARRIER = 0x400454e2L;
    private static final long TUNGETDEVNETNS = 0x54e3L;
    private static final short IFF_TAP = 0x0002;
    private static final short IFF_NO_PI = 0x1000;
    private static final int IFNAMSIZ = 16;
    /** struct ifreq: the name, then a union whose first member here is short ifr_flags. */
    private static final int IFREQ = 40;

    private final String name;
    private final int fd;

    private TapDevice(String name, int fd) {
        this.name = name;
        this.fd = fd;
    }

    /** Creates (or attaches to) the TAP interface {@code name}, without packet information. */
    static TapDevice create(String name) throws IOException {
        if (name.length() >= IFNAMSIZ) {
            throw new IOException("interface name too long: " + name);
        }
        int fd = Libc.CALLS.open("/dev/net/tun", Libc.O_RDWR | Libc.O_CLOEXEC);
        if (fd < 0) {
            throw new IOException("open /dev/net/tun: errno " + Libc.errno());
        }
        byte[] ifr = new byte[IFREQ];
        byte[] n = name.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        System.arraycopy(n, 0, ifr, 0, n.length);
        short flags = IFF_TAP | IFF_NO_PI;
        ifr[IFNAMSIZ] = (byte) flags;
        ifr[IFNAMSIZ + 1] = (byte) (flags >> 8);
        if (Libc.CALLS.ioctl(fd, TUNSETIFF, ifr) < 0) {
            int errno = Libc.errno();
            Libc.CALLS.close(fd);
            throw new IOException("TUNSETIFF " + name + ": errno " + errno);
        }
        return new TapDevice(name, fd);
    }

    String name() {
        return name;
    }

    /** The carrier the kernel sees (netif_carrier_on/off as IPoIB sets it after the broadcast join). */
    void carrier(boolean on) throws IOException {
        byte[] v = {(byte) (on ? 1 : 0), 0, 0, 0};
        if (Libc.CALLS.ioctl(fd, TUNSETCARRIER, v) < 0) {
            throw new IOException("TUNSETCARRIER " + name + ": errno " + Libc.errno());
        }
    }

    /**
     * The name of the network namespace the interface is in now (TUNGETDEVNETNS, Linux 5.2): a
     * namespace move takes it away from the daemon's; the daemon's when the kernel cannot say.
     */
    String namespace() {
        int ns = Libc.CALLS.ioctl(fd, TUNGETDEVNETNS, 0);
        if (ns < 0) {
            return NetNamespace.OWN.name();
        }
        try {
            String name = NetNamespace.nameOf(ns);
            return name != null ? name : NetNamespace.OWN.name();
        } finally {
            Libc.CALLS.close(ns);
        }
    }

    /** Blocks for the next frame the kernel transmits: its length, or -1 once closed. */
    int read(byte[] frame) {
        long n = Libc.CALLS.read(fd, frame, frame.length);
        return n < 0 ? -1 : (int) n;
    }

    /** Hands {@code length} bytes of {@code frame} to the kernel as received. */
    void write(byte[] frame, int length) {
        Libc.CALLS.write(fd, frame, length);
    }

    @Override
    public void close() {
        Libc.CALLS.close(fd);
    }
}
