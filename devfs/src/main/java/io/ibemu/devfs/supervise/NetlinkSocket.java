package io.ibemu.devfs.supervise;

import io.ibemu.devfs.netlink.NetlinkFamily;
import io.ibemu.devfs.netlink.NetlinkInput;

import java.util.ArrayDeque;
import java.util.Deque;

import static io.ibemu.devfs.supervise.Syscalls.MEMORY;

/**
 * One emulated netlink socket (the kernel's {@code struct netlink_sock} as its owner sees it):
 * the caller holds one end of a unix SOCK_SEQPACKET pair, so poll, epoll, read and close work
 * natively; the daemon holds the other end and writes there the datagrams the kernel would
 * queue. The port id, bind state and NETLINK_* options live here. Thread-safe (one lock: this).
 */
final class NetlinkSocket {

    private static final int MSG_DONTWAIT = 0x40;

    final NetlinkFamily family;
    final int protocol;
    /** SOCK_RAW or SOCK_DGRAM, as created. */
    final int type;
    /** The daemon's end of the pair. */
    final int local;
    final long inode;
    private int portId; // guarded by this; 0 until bound
    private int groups; // guarded by this
    private int peerPort; // guarded by this
    private int peerGroups; // guarded by this
    private final boolean[] flags = new boolean[16]; // NETLINK_* boolean options by number; guarded by this
    private int maxReceive; // guarded by this: the largest buffer a recvmsg offered (max_recvmsg_len)
    /** Datagrams the pair had no room for yet: pushed as the caller reads (a dump's later rounds). */
    private final Deque<byte[]> pending = new ArrayDeque<>(); // guarded by this

    NetlinkSocket(NetlinkFamily family, int protocol, int type, int local, long inode) {
        this.family = family;
        this.protocol = protocol;
        this.type = type;
        this.local = local;
        this.inode = inode;
    }

    synchronized int portId() {
        return portId;
    }

    synchronized boolean bound() {
        return portId != 0;
    }

    synchronized void bind(int port, int groups) {
        this.portId = port;
        this.groups = groups;
    }

    synchronized int groups() {
        return groups;
    }

    synchronized void connect(int port, int groups) {
        peerPort = port;
        peerGroups = groups;
    }

    synchronized int peerPort() {
        return peerPort;
    }

    synchronized int peerGroups() {
        return peerGroups;
    }

    synchronized void option(int name, boolean on) {
        flags[name] = on;
    }

    synchronized boolean option(int name) {
        return name >= 0 && name < flags.length && flags[name];
    }

    synchronized void offered(int length) {
        maxReceive = Math.min(Math.max(maxReceive, length), 32768 - 320); // SKB_WITH_OVERHEAD(32768)
    }

    /** The size netlink_dump gives one round: max_recvmsg_len if larger than NLMSG_GOODSIZE. */
    synchronized int dumpSize() {
        return Math.max(NetlinkInput.GOODSIZE, maxReceive);
    }

    /** Queues datagrams for the caller: into the pair while it takes them, the rest kept for later. */
    synchronized void queue(Iterable<byte[]> datagrams) {
        for (byte[] d : datagrams) {
            pending.addLast(d);
        }
        push();
    }

    /** Moves kept datagrams into the pair while it has room. */
    synchronized void push() {
        while (!pending.isEmpty()) {
            byte[] d = pending.peekFirst();
            long buf = MEMORY.allocateMemory(Math.max(1, d.length), false);
            try {
                MEMORY.putByteArray(buf, d, 0, d.length);
                long sent = Syscalls.LIBC.syscall(Syscalls.SYS_SENDTO, local, buf, d.length, MSG_DONTWAIT, 0, 0);
                if (sent < 0) {
                    return; // full (EAGAIN): the rest waits for the caller to read
                }
            } finally {
                MEMORY.freeMemory(buf);
            }
            pending.removeFirst();
        }
    }

    void close() {
        Syscalls.LIBC.close(local);
    }
}
