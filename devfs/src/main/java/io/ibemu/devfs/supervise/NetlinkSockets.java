package io.ibemu.devfs.supervise;

import io.ibemu.devfs.netlink.NetlinkFamily;
import io.ibemu.kernel.Errno;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static io.ibemu.devfs.supervise.Syscalls.MEMORY;

/**
 * The emulated netlink sockets of every supervised tree, by the inode of the caller's end, and
 * the port ids they hold (the kernel's nl_table hash for these protocols). The one owner of both.
 */
final class NetlinkSockets {

    private static final int S_IFMT = 0170000;
    private static final int S_IFSOCK = 0140000;
    private static final int STATX_TYPE = 1;
    private static final int STATX_MODE_OFFSET = 28;

    private final Map<Integer, NetlinkFamily> families;
    private final Map<Long, NetlinkSocket> sockets = new ConcurrentHashMap<>();
    private final Set<Integer> ports = new HashSet<>(); // guarded by itself
    private int rover = -4096; // guarded by ports: netlink_autobind's next negative port id

    NetlinkSockets(Map<Integer, NetlinkFamily> families) {
        this.families = Map.copyOf(families);
    }

    NetlinkFamily family(int protocol) {
        return families.get(protocol);
    }

    boolean isEmpty() {
        return sockets.isEmpty();
    }

    void add(NetlinkSocket s) {
        sweep();
        sockets.put(s.inode, s);
    }

    /** The emulated socket behind descriptor {@code fd} of thread {@code tid}, or null. */
    NetlinkSocket lookup(int tid, int fd) {
        if (sockets.isEmpty()) {
            return null;
        }
        long scratch = MEMORY.allocateMemory(Syscalls.STATX_SIZE + 64, true);
        try {
            Syscalls.putString(scratch + Syscalls.STATX_SIZE, "/proc/" + tid + "/fd/" + fd);
            if (Syscalls.statx(Syscalls.AT_FDCWD, scratch + Syscalls.STATX_SIZE, 0, Syscalls.STATX_INO | STATX_TYPE,
                    scratch) != 0 || (MEMORY.getShort(scratch + STATX_MODE_OFFSET) & S_IFMT) != S_IFSOCK) {
                return null;
            }
            return sockets.get(MEMORY.getLong(scratch + Syscalls.STATX_INO_OFFSET));
        } finally {
            MEMORY.freeMemory(scratch);
        }
    }

    /** netlink_insert: claims {@code port} or fails with EADDRINUSE. */
    void claim(int port) throws Errno {
        synchronized (ports) {
            if (!ports.add(port)) {
                throw Errno.of(98); // EADDRINUSE
            }
        }
    }

    /** netlink_autobind: the process's tgid if free, else the next free negative number from -4096 down. */
    int autobind(int tgid) {
        synchronized (ports) {
            if (ports.add(tgid)) {
                return tgid;
            }
            while (!ports.add(rover)) {
                rover = rover - 1 > -4096 ? -4096 : rover - 1;
            }
            int port = rover;
            rover = rover - 1 > -4096 ? -4096 : rover - 1;
            return port;
        }
    }

    /** Forgets sockets whose caller end every process has closed (the pair's other end hangs up). */
    void sweep() {
        long pfd = MEMORY.allocateMemory(8, true);
        try {
            for (NetlinkSocket s : sockets.values()) {
                MEMORY.putInt(pfd, s.local);
                MEMORY.putShort(pfd + 4, (short) 0);
                MEMORY.putShort(pfd + 6, (short) 0);
                if (Syscalls.LIBC.poll(pfd, 1, 0) > 0 && (MEMORY.getShort(pfd + 6) & Syscalls.POLLHUP) != 0
                        && sockets.remove(s.inode, s)) {
                    int port = s.portId();
                    if (port != 0) {
                        synchronized (ports) {
                            ports.remove(port);
                        }
                    }
                    s.close();
                }
            }
        } finally {
            MEMORY.freeMemory(pfd);
        }
    }

    void closeAll() {
        for (NetlinkSocket s : sockets.values()) {
            if (sockets.remove(s.inode, s)) {
                s.close();
            }
        }
    }
}
