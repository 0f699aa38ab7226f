package io.ibemu.devfs.supervise;

import io.ibemu.devfs.device.DeviceNode;
import io.ibemu.devfs.device.MessageFile;
import io.ibemu.kernel.Errno;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import static io.ibemu.devfs.supervise.Syscalls.MEMORY;

/**
 * The {@link SocketFile}s of every supervised tree: by the inode of the caller's end (what a
 * range descriptor is found to be), by a token of their own (what hangs up), and the (tid, fd)
 * answers of earlier lookups. One thread waits on an epoll set of the daemon's ends: a hang-up
 * is the last close of the caller's end in every process, and the file is released then.
 */
final class SocketFiles implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(SocketFiles.class.getName());
    private static final int AF_UNIX = 1;
    private static final int SOCK_SEQPACKET = 5;
    private static final int SOCK_CLOEXEC = 02000000;
    private static final int SOL_SOCKET = 1;
    private static final int SO_SNDBUFFORCE = 32;
    private static final int SO_SNDBUF = 7;
    /**
     * The daemon's end's send buffer (the kernel doubles it): unix datagrams are charged to the
     * sender, and the kernel's umad queue has no byte limit, only MAX_UMAD_RECV_LIST_SIZE packets.
     */
    private static final int SEND_BUFFER = 256 << 20;
    private static final int EPOLL_CLOEXEC = 02000000;
    private static final int EPOLL_CTL_ADD = 1;
    private static final int EPOLLIN = 1;
    private static final int EFD_NONBLOCK = 04000;
    private static final int EFD_CLOEXEC = 02000000;
    private static final int EPOLL_EVENT = 12; // struct epoll_event is packed on x86_64
    private static final int EVENTS = 16;
    private static final int JOIN_MS = 1000;
    private static final int MSG_TRUNC = 0x20;
    private static final int MSG_DONTWAIT = 0x40;

    private final Map<Long, SocketFile> byInode = new ConcurrentHashMap<>();
    /**
     * By the token each pair's epoll entry carries: never reused, unlike the daemon's descriptor
     * numbers, so a hang-up that two threads saw at once cannot release a later pair.
     */
    private final Map<Long, SocketFile> byToken = new ConcurrentHashMap<>();
    private final AtomicLong tokens = new AtomicLong();
    /** The supervisor's (tid, fd) answers, shared with its node files. */
    private final DescriptorCache<Object> descriptors;
    private final int epoll;
    /** In the epoll set with token 0 (pairs count from 1): written at close, so the watcher ends at once. */
    private final int wake;
    private final Thread watcher;
    private volatile boolean closing;

    SocketFiles(DescriptorCache<Object> descriptors) throws Errno {
        this.descriptors = descriptors;
        epoll = (int) Syscalls.syscall(Syscalls.SYS_EPOLL_CREATE1, EPOLL_CLOEXEC, 0, 0, 0, 0);
        try {
            wake = (int) Syscalls.syscall(Syscalls.SYS_EVENTFD2, 0, EFD_CLOEXEC | EFD_NONBLOCK, 0, 0, 0);
        } catch (Errno e) {
            Syscalls.LIBC.close(epoll);
            throw e;
        }
        watch(wake, EPOLLIN, 0);
        watcher = new Thread(this::watch, "supervise-hangups");
        watcher.setDaemon(true);
        watcher.start();
    }

    /**
     * A pair for a new open of {@code node} with access mode {@code accessMode}: {@code file}
     * diverted to the daemon's end, and the caller's end returned for the caller's descriptor
     * table (the caller of this closes it).
     */
    int open(DeviceNode node, MessageFile file, int accessMode) throws Errno {
        reap();
        long at = MEMORY.allocateMemory(8, true);
        int local;
        int remote;
        try {
            Syscalls.syscall(Syscalls.SYS_SOCKETPAIR, AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, at, 0);
            local = MEMORY.getInt(at);
            remote = MEMORY.getInt(at + 4);
            SocketFile s = null;
            try {
                MEMORY.putInt(at, SEND_BUFFER);
                try {
                    Syscalls.syscall(Syscalls.SYS_SETSOCKOPT, local, SOL_SOCKET, SO_SNDBUFFORCE, at, 4);
                } catch (Errno e) {
                    if (e.code() != Errno.EPERM) {
                        throw e;
                    }
                    // FORCE needs CAP_NET_ADMIN in the initial user namespace (sockopt_capable): an
                    // unprivileged daemon gets net.core.wmem_max at most, a shallower queue
                    Syscalls.syscall(Syscalls.SYS_SETSOCKOPT, local, SOL_SOCKET, SO_SNDBUF, at, 4);
                }
                s = new SocketFile(node, file, local, NetlinkCalls.inode(remote), accessMode, tokens.incrementAndGet());
                byInode.put(s.inode, s);
                byToken.put(s.token, s);
                watch(local, 0, s.token); // no events asked: EPOLLHUP and EPOLLERR come anyway
                file.divert(s);
                return remote;
            } catch (Errno e) {
                if (s != null) {
                    byToken.remove(s.token, s);
                    byInode.remove(s.inode, s);
                }
                Syscalls.LIBC.close(local);
                Syscalls.LIBC.close(remote);
                throw e;
            }
        } finally {
            MEMORY.freeMemory(at);
        }
    }

    boolean isEmpty() {
        return byInode.isEmpty();
    }

    /** The pair whose caller end has inode {@code inode} (a socket's, on sockfs), or null. */
    SocketFile byInode(long inode) {
        return byInode.get(inode);
    }

    /** Adds {@code fd} to the epoll set for {@code events}, its events to carry {@code token}. */
    private void watch(int fd, int events, long token) throws Errno {
        long event = MEMORY.allocateMemory(EPOLL_EVENT, true);
        try {
            MEMORY.putInt(event, events);
            MEMORY.putLong(event + 4, token);
            Syscalls.syscall(Syscalls.SYS_EPOLL_CTL, epoll, EPOLL_CTL_ADD, fd, event, 0);
        } finally {
            MEMORY.freeMemory(event);
        }
    }

    /**
     * The pair of {@code s} is given up for another carrier of its file (a FUSE file): the
     * file stops diverting, the datagrams in the caller's end ({@code callerEnd}, a copy of it)
     * are drained (the file's own queue holds each of them), and the pair leaves the registry
     * without a release, which is the new carrier's now.
     */
    void giveUp(SocketFile s, int callerEnd) {
        s.file.divert(null);
        long buffer = MEMORY.allocateMemory(1, false);
        try {
            while (Syscalls.LIBC.syscall(Syscalls.SYS_RECVFROM, callerEnd, buffer, 1, MSG_DONTWAIT | MSG_TRUNC, 0, 0) >= 0) {
                // each datagram goes whole, whatever its size
            }
        } finally {
            MEMORY.freeMemory(buffer);
        }
        if (byToken.remove(s.token, s)) {
            byInode.remove(s.inode, s);
            descriptors.closed(s);
            Syscalls.LIBC.close(s.local);
        }
    }

    private void watch() {
        while (!closing) {
            hangUps(-1); // until a hang-up, or the wake-up of close()
        }
    }

    /**
     * Releases now the files whose pairs have hung up: a close in the caller has released its
     * file before the close returned (fput's task work), so the caller's next open or register
     * finds it gone, as with the kernel's release, rather than whenever the watcher runs.
     */
    void reap() {
        if (!byToken.isEmpty()) {
            hangUps(0);
        }
    }

    private void hangUps(int timeoutMs) {
        long events = MEMORY.allocateMemory((long) EPOLL_EVENT * EVENTS, true);
        try {
            long n = Syscalls.LIBC.syscall(Syscalls.SYS_EPOLL_WAIT, epoll, events, EVENTS, timeoutMs, 0, 0);
            for (int i = 0; i < n; i++) {
                hungUp(MEMORY.getLong(events + (long) EPOLL_EVENT * i + 4));
            }
        } finally {
            MEMORY.freeMemory(events);
        }
    }

    /** The caller's end is closed everywhere: the file's release, then our end goes (and leaves the epoll set). */
    private void hungUp(long token) {
        SocketFile s = byToken.remove(token);
        if (s == null) {
            return; // seen and released by another thread already
        }
        byInode.remove(s.inode, s);
        descriptors.closed(s);
        try {
            s.file.release();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "release of a socket-carried file failed", e);
        } finally {
            Syscalls.LIBC.close(s.local);
        }
    }

    /** Every file released and every daemon end closed (the callers' ends then read end-of-file). */
    @Override
    public void close() {
        closing = true;
        long one = MEMORY.allocateMemory(8, true);
        try {
            MEMORY.putLong(one, 1);
            Syscalls.LIBC.syscall(Syscalls.SYS_WRITE, wake, one, 8, 0, 0, 0);
        } finally {
            MEMORY.freeMemory(one);
        }
        try {
            watcher.join(JOIN_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (Long token : byToken.keySet()) {
            hungUp(token);
        }
        Syscalls.LIBC.close(epoll);
        Syscalls.LIBC.close(wake);
    }
}
