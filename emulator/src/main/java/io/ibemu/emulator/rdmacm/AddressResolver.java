package io.ibemu.emulator.rdmacm;

import io.ibemu.emulator.ipoib.Ipoib;
import io.ibemu.emulator.ipoib.NetNamespace;
import io.ibemu.kernel.Errno;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.HexFormat;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * addr.c over the IPoIB interfaces of a caller's network namespace: which interface an IP
 * address belongs to (rdma_translate_ip), the route to a destination and the source address it
 * takes (addr4_resolve/addr6_resolve: a local destination goes through that interface itself,
 * as the kernel's loopback route does), and the neighbour's 20-byte hardware address from the
 * kernel's neighbour table (fetch_ha: not there yet, a packet to the destination makes the
 * kernel ask with ARP or ND, and the caller retries, as ENODATA does). Each lookup runs inside
 * the namespace ({@link NetNamespace}): its IPv4 interfaces (Java lists them by ioctls on a
 * socket of the thread's namespace; its IPv6 list reads /proc/self/net, the process's, so IPv6 is
 * not served: docs/compatibility.md), its sockets, its {@code ip neigh}.
 */
final class AddressResolver {
    /** The discard port: the datagram that makes the kernel resolve the neighbour goes nowhere. */
    private static final int DISCARD_PORT = 9;

    /** A route: the source address and the IPoIB interface, or null for the loopback device. */
    record Route(InetAddress source, Ipoib.Netdev netdev) {
    }

    private final Supplier<Ipoib> ipoib;
    private final NetNamespace net;

    /** Lookups in {@code net}, the namespace of the program that opened the rdma_cm file (cma's id net). */
    AddressResolver(Supplier<Ipoib> ipoib, NetNamespace net) {
        this.ipoib = ipoib;
        this.net = net;
    }

    NetNamespace net() {
        return net;
    }

    /**
     * rdma_translate_ip: the interface holding {@code ip} (EADDRNOTAVAIL when none does), or, when
     * an earlier bind of the id found one ({@code kept}, dev_addr's bound_dev_if), that interface
     * whatever the address (ENODEV once it is gone).
     */
    NetworkInterface translate(InetAddress ip, int kept) throws Errno {
        return net.call(() -> translateHere(ip, kept));
    }

    private static NetworkInterface translateHere(InetAddress ip, int kept) throws Errno {
        NetworkInterface n;
        try {
            n = kept != 0 ? NetworkInterface.getByIndex(kept) : NetworkInterface.getByInetAddress(ip);
        } catch (SocketException e) {
            n = null;
        }
        if (n == null) {
            throw Errno.of(kept != 0 ? Errno.ENODEV : Errno.EADDRNOTAVAIL);
        }
        return n;
    }

    /** The IPoIB netdev {@code n} is, if it is one. */
    Optional<Ipoib.Netdev> ipoib(NetworkInterface n) {
        return netdev(n.getName());
    }

    private Optional<Ipoib.Netdev> netdev(String name) {
        Ipoib i = ipoib.get();
        return i == null ? Optional.empty() : i.netdevs().stream().filter(d -> d.name().equals(name)).findFirst();
    }

    /**
     * The route to {@code dst}: a local address is reached through its own interface (source =
     * destination); otherwise the up interface whose network holds it, with that interface's
     * address as the source unless {@code src} names one. No such interface: ENETUNREACH.
     */
    Route route(InetAddress src, InetAddress dst) throws Errno {
        return net.call(() -> routeHere(src, dst));
    }

    private Route routeHere(InetAddress src, InetAddress dst) throws Errno {
        try {
            if (dst.isMulticastAddress()) {
                // a multicast destination leaves through the source address's interface (ip_route_output_key)
                NetworkInterface from = src == null || src.isAnyLocalAddress() ? null : NetworkInterface.getByInetAddress(src);
                if (from == null) {
                    throw Errno.of(Errno.ENETUNREACH);
                }
                return new Route(src, netdev(from.getName()).orElse(null));
            }
            NetworkInterface local = NetworkInterface.getByInetAddress(dst);
            if (local != null) {
                return new Route(dst, local.isLoopback() ? null : netdev(local.getName()).orElse(null));
            }
            for (NetworkInterface n : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (!n.isUp() || n.isLoopback()) {
                    continue;
                }
                for (InterfaceAddress a : n.getInterfaceAddresses()) {
                    if (a.getAddress().getClass() == dst.getClass() && sameNetwork(a, dst)) {
                        InetAddress source = src != null && !src.isAnyLocalAddress() ? src : a.getAddress();
                        return new Route(source, netdev(n.getName()).orElse(null));
                    }
                }
            }
        } catch (SocketException e) {
            throw Errno.of(Errno.ENETUNREACH);
        }
        throw Errno.of(Errno.ENETUNREACH);
    }

    private static boolean sameNetwork(InterfaceAddress a, InetAddress dst) {
        byte[] x = a.getAddress().getAddress();
        byte[] y = dst.getAddress();
        int bits = a.getNetworkPrefixLength();
        for (int i = 0; i < x.length && bits > 0; i++, bits -= 8) {
            int mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
            if ((x[i] & mask) != (y[i] & mask)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The neighbour's 20-byte hardware address on the route's interface, or empty after asking
     * the kernel to resolve it (the caller tries again until its timeout, as addr.c's ENODATA).
     */
    Optional<byte[]> neighbour(Route route, InetAddress dst) {
        try {
            return net.call(() -> neighbourHere(route, dst));
        } catch (Errno e) {
            return Optional.empty(); // the namespace's last user is gone: the id is too
        }
    }

    private Optional<byte[]> neighbourHere(Route route, InetAddress dst) {
        Ipoib i = ipoib.get();
        if (i == null || route.netdev() == null) {
            return Optional.empty();
        }
        if (dst.isMulticastAddress()) {
            return Optional.of(multicastAddress(dst, route.netdev().pkey()));
        }
        Optional<byte[]> mac = kernelNeighbour(route.netdev().name(), dst);
        if (mac.isPresent()) {
            return i.neighbour(route.netdev().name(), mac.get());
        }
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(route.source(), 0))) {
            s.send(new DatagramPacket(new byte[1], 1, new InetSocketAddress(dst, DISCARD_PORT)));
        } catch (IOException e) {
            // the neighbour stays unresolved: the timeout reports it
        }
        return Optional.empty();
    }

    /**
     * ip_ib_mc_map / ipv6_ib_mc_map: the 20-byte address of a multicast group on an IPoIB link —
     * QPN 0xffffff, then the MGID ff12:401b:PKEY::(the group's low 28 bits), ff12:601b:... for IPv6.
     */
    static byte[] multicastAddress(InetAddress group, int pkey) {
        byte[] a = group.getAddress();
        byte[] b = new byte[20];
        b[1] = (byte) 0xff;
        b[2] = (byte) 0xff;
        b[3] = (byte) 0xff;
        b[4] = (byte) 0xff;
        b[5] = 0x12;
        b[6] = (byte) (a.length == 4 ? 0x40 : 0x60);
        b[7] = 0x1b;
        b[8] = (byte) (pkey >> 8 | 0x80);
        b[9] = (byte) pkey;
        if (a.length == 4) {
            b[16] = (byte) (a[0] & 0x0f);
            b[17] = a[1];
            b[18] = a[2];
            b[19] = a[3];
        } else {
            System.arraycopy(a, 6, b, 10, 10);
        }
        return b;
    }

    /** The MAC of a usable entry for {@code dst} in the kernel's neighbour table of {@code dev} ({@code ip neigh}). */
    private static Optional<byte[]> kernelNeighbour(String dev, InetAddress dst) {
        try {
            Process p = new ProcessBuilder("ip", "neigh", "show", "to", dst.getHostAddress(), "dev", dev)
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            p.waitFor();
            for (String line : out.split("\n")) {
                String[] t = line.trim().split("\\s+");
                int at = java.util.List.of(t).indexOf("lladdr");
                String state = t[t.length - 1];
                if (at > 0 && at + 1 < t.length && !state.equals("FAILED") && !state.equals("INCOMPLETE")) {
                    return Optional.of(HexFormat.ofDelimiter(":").parseHex(t[at + 1]));
                }
            }
        } catch (IOException | IllegalArgumentException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return Optional.empty();
    }
}
