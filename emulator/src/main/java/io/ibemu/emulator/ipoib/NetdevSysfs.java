package io.ibemu.emulator.ipoib;

import io.ibemu.kernel.Errno;
import io.ibemu.sysfstree.SysDir;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;

/**
 * An IPoIB netdev's sysfs directory as the kernel lays it out, built over the TAP's real one:
 * every real file and link is passed through (values read and written live, the kernel's errno
 * kept), and what IPoIB's netdev shows differently is overridden or added: {@code type} 32,
 * {@code addr_len} 20, the 20-byte {@code address} and {@code broadcast}, {@code dev_id} and
 * {@code dev_port}, {@code device}, and ipoib_main.c's and ipoib_vlan.c's attributes
 * ({@code pkey}, {@code mode}, {@code umcast}, {@code create_child}, {@code delete_child},
 * {@code parent}).
 */
final class NetdevSysfs {
    /** ARPHRD_INFINIBAND. */
    static final int TYPE = 32;
    /** IPoIB's broadcast address with the P_Key in octets 8 and 9 (ipoib_main.c ipv4_bcast_addr). */
    private static final byte[] BROADCAST = {0x00, -1, -1, -1, -1, 0x12, 0x40, 0x1b, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1,
            -1, -1};

    private NetdevSysfs() {
    }

    /**
     * Fills {@code dir} for {@code i}: the real directory {@code real}'s entries, then IPoIB's.
     *
     * @param device the HCA's PCI function below /sys/devices, e.g. "pci0000:00/0000:00:10.0/0000:10:00.0"
     */
    static void build(SysDir dir, Path real, IpoibInterface i, Ipoib ipoib, String device) throws IOException {
        passThrough(dir, real);
        dir.attribute("type", () -> TYPE + "\n");
        dir.attribute("addr_len", () -> HardwareAddress.LENGTH + "\n");
        dir.attribute("address", () -> i.address() + "\n");
        dir.attribute("broadcast", () -> broadcast(i.pkey()) + "\n");
        if (i.parent() == null) {
            // ipoib_parent_init only: the PCI function as parent, dev_port, and dev_id "for backwards
            // compatibility"; ipoib_child_init sets none (a child's are 0, it has no device link)
            int devPort = i.port().number() - 1;
            dir.attribute("dev_id", () -> String.format("%#x%n", devPort));
            dir.attribute("dev_port", () -> devPort + "\n");
            dir.link("device", "../../../" + device);
        }
        dir.attribute("pkey", () -> String.format("0x%04x%n", i.pkey()));
        dir.attribute("mode", () -> i.connectedMode() ? "connected\n" : "datagram\n", value -> ipoib.setMode(i, value));
        dir.attribute("umcast", () -> (i.umcast() ? 1 : 0) + "\n", value -> i.umcast(strtoul(value) > 0));
        if (i.parent() == null) {
            dir.attribute("create_child", 0200, null, value -> ipoib.createChild(i, pkeyOf(value, true)));
            dir.attribute("delete_child", 0200, null, value -> ipoib.deleteChild(i, pkeyOf(value, false)));
        } else {
            dir.attribute("parent", () -> i.parent().name() + "\n");
        }
    }

    /** The broadcast hardware address of the partition {@code pkey}, as ip(8) prints it. */
    static String broadcast(int pkey) {
        byte[] b = BROADCAST.clone();
        b[8] = (byte) (pkey >> 8);
        b[9] = (byte) pkey;
        return java.util.HexFormat.ofDelimiter(":").formatHex(b);
    }

    /**
     * create_child's and delete_child's parse: sscanf "%i", then 0..0xffff; create_child also
     * refuses 0 and 0x8000, delete_child lets them through to ipoib_vlan_delete's ENODEV.
     */
    private static int pkeyOf(String value, boolean create) throws Errno {
        Long pkey = scanInteger(value);
        if (pkey == null || pkey < 0 || pkey > 0xFFFF || create && (pkey == 0 || pkey == 0x8000)) {
            throw Errno.of(Errno.EINVAL);
        }
        return pkey.intValue();
    }

    /** sscanf's %i: blanks, a sign, then a 0x-hex, 0-octal or decimal number up to its first non-digit; null if none. */
    static Long scanInteger(String s) {
        int at = 0;
        while (at < s.length() && Character.isWhitespace(s.charAt(at))) {
            at++;
        }
        boolean negative = false;
        if (at < s.length() && (s.charAt(at) == '+' || s.charAt(at) == '-')) {
            negative = s.charAt(at++) == '-';
        }
        int radix = 10;
        if (s.startsWith("0x", at) || s.startsWith("0X", at)) {
            if (at + 2 < s.length() && Character.digit(s.charAt(at + 2), 16) >= 0) {
                radix = 16;
                at += 2;
            }
        } else if (s.startsWith("0", at)) {
            radix = 8;
        }
        int start = at;
        long v = 0;
        while (at < s.length() && Character.digit(s.charAt(at), radix) >= 0 && v < 1L << 40) {
            v = v * radix + Character.digit(s.charAt(at++), radix);
        }
        if (at == start) {
            return null;
        }
        return negative ? -v : v;
    }

    /** simple_strtoul(buf, NULL, 0): what parses, 0 when nothing does. */
    private static long strtoul(String s) {
        Long v = scanInteger(s);
        return v == null ? 0 : v;
    }

    /** The real directory's files and links, recursively, each passed through live. */
    private static void passThrough(SysDir dir, Path real) throws IOException {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(real)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (Files.isSymbolicLink(entry)) {
                    dir.link(name, Files.readSymbolicLink(entry).toString());
                } else if (Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) {
                    passThrough(dir.dir(name), entry);
                } else {
                    RealAttribute file = new RealAttribute(entry);
                    int mode = mode(Files.getPosixFilePermissions(entry, LinkOption.NOFOLLOW_LINKS));
                    dir.fallibleAttribute(name, mode, file::read, file::write);
                }
            }
        }
    }

    private static int mode(Set<PosixFilePermission> permissions) {
        int mode = 0;
        for (PosixFilePermission p : permissions) {
            mode |= 0400 >> p.ordinal();
        }
        return mode;
    }
}
