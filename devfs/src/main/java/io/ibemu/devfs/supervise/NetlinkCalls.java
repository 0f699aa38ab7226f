package io.ibemu.devfs.supervise;

import io.ibemu.devfs.netlink.NetlinkFamily;
import io.ibemu.devfs.netlink.NetlinkInput;
import io.ibemu.devfs.supervise.Listener.Notification;
import io.ibemu.kernel.Errno;
import io.ibemu.kernel.ProcessMemory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

import static io.ibemu.devfs.supervise.Syscalls.MEMORY;

/**
 * The socket calls of a supervised process on an emulated netlink socket, answered as
 * net/netlink/af_netlink.c answers them (netlink_create, netlink_bind, netlink_connect,
 * netlink_getname, netlink_setsockopt/getsockopt, netlink_sendmsg, netlink_recvmsg). Calls the
 * unix pair serves as well (SO_RCVBUF, shutdown, ...) continue to it.
 */
final class NetlinkCalls {

    // x86_64 syscall numbers of the socket calls the filter notifies on range descriptors
    static final int SYS_SOCKET = 41;
    static final int SYS_CONNECT = 42;
    static final int SYS_SENDTO = 44;
    static final int SYS_RECVFROM = 45;
    static final int SYS_SENDMSG = 46;
    static final int SYS_RECVMSG = 47;
    static final int SYS_BIND = 49;
    static final int SYS_GETSOCKNAME = 51;
    static final int SYS_GETPEERNAME = 52;
    static final int SYS_SETSOCKOPT = 54;
    static final int SYS_GETSOCKOPT = 55;

    private static final int AF_UNIX = 1;
    private static final int AF_UNSPEC = 0;
    private static final int AF_NETLINK = 16;
    private static final int SOCK_DGRAM = 2;
    private static final int SOCK_RAW = 3;
    private static final int SOCK_SEQPACKET = 5;
    private static final int SOCK_NONBLOCK = 04000;
    private static final int SOCK_CLOEXEC = 02000000;
    private static final int SOL_SOCKET = 1;
    private static final int SO_TYPE = 3;
    private static final int SO_PROTOCOL = 38;
    private static final int SO_DOMAIN = 39;
    private static final int SOL_NETLINK = 270;
    private static final int NETLINK_ADD_MEMBERSHIP = 1;
    private static final int NETLINK_DROP_MEMBERSHIP = 2;
    private static final int NETLINK_LIST_MEMBERSHIPS = 9;
    /** The boolean options: PKTINFO, BROADCAST_ERROR, NO_ENOBUFS, LISTEN_ALL_NSID, CAP_ACK, EXT_ACK, GET_STRICT_CHK. */
    private static final int[] FLAG_OPTIONS = {3, 4, 5, 8, 10, 11, 12};
    static final int NETLINK_CAP_ACK = 10;
    static final int NETLINK_EXT_ACK = 11;
    private static final int SOCKADDR_NL = 12;
    private static final int MSG_OOB = 1;
    private static final int MSG_PEEK = 2;
    private static final int MSG_TRUNC = 0x20;
    private static final int MSG_DONTWAIT = 0x40;
    private static final int MSG_ERRQUEUE = 0x2000;
    private static final int F_GETFL = 3;
    private static final int F_SETFL = 4;
    private static final int SYS_FCNTL = 72;
    private static final int SYS_SOCKETPAIR = 53;
    /** sk_sndbuf's default (net.core.wmem_default): netlink_sendmsg refuses more than it less 32. */
    private static final int SNDBUF = 212992;
    private static final int RECEIVE_SCRATCH = 1 << 16;
    private static final int EADDRINUSE = 98;
    private static final int ESOCKTNOSUPPORT = 94;
    private static final int EPROTONOSUPPORT = 93;
    private static final int ENOPROTOOPT = 92;
    private static final int ECONNREFUSED = 111;
    private static final int EMSGSIZE = 90;
    private static final int CAP_NET_ADMIN = 12;

    private final Listener listener;
    private final NetlinkSockets sockets;

    NetlinkCalls(Listener listener, NetlinkSockets sockets) {
        this.listener = listener;
        this.sockets = sockets;
    }

    /** socket(AF_NETLINK, type, protocol): a pair, the caller's end installed in the reserved range. */
    void socket(Notification n) throws Errno {
        long[] a = n.args();
        int protocol = (int) a[2];
        int type = (int) a[1];
        NetlinkFamily family = sockets.family(protocol);
        if (family == null) {
            listener.fail(n, EPROTONOSUPPORT); // as the kernel without that protocol
            return;
        }
        if ((type & ~(0xf | SOCK_NONBLOCK | SOCK_CLOEXEC)) != 0) {
            listener.fail(n, Errno.EINVAL); // __sys_socket: unknown flags
            return;
        }
        if ((type & 0xf) != SOCK_RAW && (type & 0xf) != SOCK_DGRAM) {
            listener.fail(n, ESOCKTNOSUPPORT); // netlink_create
            return;
        }
        int[] pair = pair((type & SOCK_NONBLOCK) != 0);
        boolean registered = false;
        try {
            NetlinkSocket s = new NetlinkSocket(family, protocol, type & 0xf, pair[0], inode(pair[1]));
            int target = listener.lowestFree(n.tid());
            if (target < 0) {
                throw Errno.of(Errno.EMFILE);
            }
            sockets.add(s); // from here the pair's hang-up (sweep) closes our end
            registered = true;
            listener.addFd(n.id(), pair[1], target, Syscalls.ADDFD_SETFD | Syscalls.ADDFD_SEND,
                    (type & SOCK_CLOEXEC) != 0 ? Syscalls.O_CLOEXEC : 0);
        } catch (Errno e) {
            if (!registered) {
                Syscalls.LIBC.close(pair[0]);
            }
            listener.fail(n, e.code());
        } finally {
            Syscalls.LIBC.close(pair[1]); // the caller's descriptor holds it now
        }
    }

    /** A unix SOCK_SEQPACKET pair: {ours (non-blocking), the caller's (non-blocking if asked)}. */
    private static int[] pair(boolean nonblocking) throws Errno {
        long at = MEMORY.allocateMemory(8, true);
        int[] pair;
        try {
            Syscalls.syscall(SYS_SOCKETPAIR, AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, at, 0);
            pair = new int[] {MEMORY.getInt(at), MEMORY.getInt(at + 4)};
        } finally {
            MEMORY.freeMemory(at);
        }
        try {
            Syscalls.syscall(SYS_FCNTL, pair[0], F_SETFL, Syscalls.O_NONBLOCK, 0, 0);
            if (nonblocking) {
                Syscalls.syscall(SYS_FCNTL, pair[1], F_SETFL, Syscalls.O_NONBLOCK, 0, 0);
            }
            return pair;
        } catch (Errno e) {
            Syscalls.LIBC.close(pair[0]);
            Syscalls.LIBC.close(pair[1]);
            throw e;
        }
    }

    /** The caller's descriptor is one of our netlink sockets. */
    boolean emulated(int tid, long fd) {
        return fd >= 0 && fd <= Integer.MAX_VALUE && sockets.lookup(tid, (int) fd) != null;
    }

    /** A socket call on a range descriptor: served when it is an emulated netlink socket, else continued. */
    boolean serve(Notification n) throws Errno {
        NetlinkSocket s = sockets.lookup(n.tid(), (int) n.args()[0]);
        if (s == null) {
            return false;
        }
        long[] a = n.args();
        switch (n.nr()) {
            case SYS_BIND -> bind(n, s, a[1], a[2]);
            case SYS_CONNECT -> connect(n, s, a[1], a[2]);
            case SYS_GETSOCKNAME -> name(n, a[1], a[2], s.portId(), s.groups());
            case SYS_GETPEERNAME -> name(n, a[1], a[2], s.peerPort(), s.peerGroups());
            case SYS_SETSOCKOPT -> setOption(n, s, (int) a[1], (int) a[2], a[3], a[4]);
            case SYS_GETSOCKOPT -> getOption(n, s, (int) a[1], (int) a[2], a[3], a[4]);
            case SYS_SENDTO -> send(n, s, a[2] > SNDBUF - 32 ? tooLong(n) : read(n, a[1], a[2]), a[4], a[5],
                    (int) a[3]);
            case SYS_SENDMSG -> sendMessage(n, s, a[1], (int) a[2]);
            case SYS_RECVFROM -> receive(n, s, new long[] {a[1], a[2]}, (int) a[3], a[4], a[5], 0);
            case SYS_RECVMSG -> receiveMessage(n, s, a[1], (int) a[2]);
            default -> listener.proceed(n);
        }
        return true;
    }

    /** netlink_sendmsg's size check, made before the daemon copies anything. */
    private byte[] tooLong(Notification n) {
        listener.fail(n, EMSGSIZE);
        return null;
    }

    /** write/writev on an emulated socket: a send without an address. */
    boolean write(Notification n, byte[] data) throws Errno {
        NetlinkSocket s = sockets.lookup(n.tid(), (int) n.args()[0]);
        if (s == null) {
            return false;
        }
        send(n, s, data, 0, 0, 0);
        return true;
    }

    private void bind(Notification n, NetlinkSocket s, long address, long length) throws Errno {
        ByteBuffer sa = sockaddr(n, address, length);
        if (sa == null) {
            return;
        }
        int port = sa.getInt(4);
        int groups = sa.getInt(8);
        if (groups != 0 && !netAdmin(n.tid())) {
            listener.fail(n, Errno.EPERM); // netlink_allowed(NL_CFG_F_NONROOT_RECV)
            return;
        }
        synchronized (s) {
            int bound = s.portId();
            if (bound != 0 && port != bound) {
                listener.fail(n, Errno.EINVAL); // netlink_bind: a bound socket keeps its port
                return;
            }
            if (bound == 0 && port != 0) {
                try {
                    sockets.claim(port);
                } catch (Errno e) {
                    listener.fail(n, EADDRINUSE);
                    return;
                }
                bound = port;
            } else if (bound == 0) {
                bound = sockets.autobind(tgid(n.tid()));
            }
            s.bind(bound, groups);
        }
        listener.reply(n, 0);
    }

    private void connect(Notification n, NetlinkSocket s, long address, long length) throws Errno {
        if (length >= 2 && address != 0 && shortAt(n, address) == AF_UNSPEC) {
            s.connect(0, 0); // disconnect
            listener.reply(n, 0);
            return;
        }
        ByteBuffer sa = sockaddr(n, address, length);
        if (sa == null) {
            return;
        }
        if ((sa.getInt(4) != 0 || sa.getInt(8) != 0) && !netAdmin(n.tid())) {
            listener.fail(n, Errno.EPERM);
            return;
        }
        autobind(n, s);
        s.connect(sa.getInt(4), sa.getInt(8));
        listener.reply(n, 0);
    }

    /** getsockname/getpeername: a sockaddr_nl, truncated to the caller's length, the full length written back. */
    private void name(Notification n, long address, long lengthAddress, int port, int groups) throws Errno {
        int room;
        try {
            room = ByteBuffer.wrap(ProcessMemory.read(n.tid(), lengthAddress, 4)).order(ByteOrder.nativeOrder()).getInt();
        } catch (Errno e) {
            listener.fail(n, Errno.EFAULT);
            return;
        }
        if (room < 0) {
            listener.fail(n, Errno.EINVAL);
            return;
        }
        if (!writeAddress(n, address, lengthAddress, room, port, groups)) {
            return;
        }
        listener.reply(n, 0);
    }

    private void setOption(Notification n, NetlinkSocket s, int level, int name, long value, long length)
            throws Errno {
        if (level == SOL_SOCKET) {
            listener.proceed(n); // buffer sizes and the like: the pair takes them
            return;
        }
        if (level != SOL_NETLINK) {
            listener.fail(n, ENOPROTOOPT);
            return;
        }
        int v = 0;
        if (length >= 4) {
            try {
                v = ByteBuffer.wrap(ProcessMemory.read(n.tid(), value, 4)).order(ByteOrder.nativeOrder()).getInt();
            } catch (Errno e) {
                listener.fail(n, Errno.EFAULT);
                return;
            }
        }
        if (name == NETLINK_ADD_MEMBERSHIP || name == NETLINK_DROP_MEMBERSHIP) {
            if (!netAdmin(n.tid())) {
                listener.fail(n, Errno.EPERM);
            } else if (v == 0 || v - 1 >= 32) {
                listener.fail(n, Errno.EINVAL);
            } else {
                int bit = 1 << (v - 1);
                synchronized (s) {
                    s.bind(s.portId(), name == NETLINK_ADD_MEMBERSHIP ? s.groups() | bit : s.groups() & ~bit);
                }
                listener.reply(n, 0);
            }
            return;
        }
        if (!isFlag(name)) {
            listener.fail(n, ENOPROTOOPT);
            return;
        }
        s.option(name, v != 0);
        listener.reply(n, 0);
    }

    private void getOption(Notification n, NetlinkSocket s, int level, int name, long value, long lengthAddress)
            throws Errno {
        Integer answer = null;
        if (level == SOL_SOCKET) {
            answer = switch (name) {
                case SO_TYPE -> s.type;
                case SO_PROTOCOL -> s.protocol;
                case SO_DOMAIN -> AF_NETLINK;
                default -> null;
            };
            if (answer == null) {
                listener.proceed(n);
                return;
            }
        } else if (level != SOL_NETLINK) {
            listener.fail(n, ENOPROTOOPT);
            return;
        } else if (name == NETLINK_LIST_MEMBERSHIPS) {
            answer = s.groups();
        } else if (isFlag(name)) {
            answer = s.option(name) ? 1 : 0;
        } else {
            listener.fail(n, ENOPROTOOPT);
            return;
        }
        int room;
        try {
            room = ByteBuffer.wrap(ProcessMemory.read(n.tid(), lengthAddress, 4)).order(ByteOrder.nativeOrder()).getInt();
        } catch (Errno e) {
            listener.fail(n, Errno.EFAULT);
            return;
        }
        if (room < 4 && !(level == SOL_NETLINK && name == NETLINK_LIST_MEMBERSHIPS)) {
            listener.fail(n, Errno.EINVAL);
            return;
        }
        if (room < 0) {
            listener.fail(n, Errno.EINVAL);
            return;
        }
        try {
            byte[] v = intBytes(answer);
            ProcessMemory.write(n.tid(), value, v, 0, Math.min(4, room));
            ProcessMemory.write(n.tid(), lengthAddress, intBytes(4), 0, 4);
        } catch (Errno e) {
            listener.fail(n, Errno.EFAULT);
            return;
        }
        listener.reply(n, 0);
    }

    private void sendMessage(Notification n, NetlinkSocket s, long msghdr, int flags) throws Errno {
        ByteBuffer h = msghdr(n, msghdr);
        if (h == null) {
            return;
        }
        byte[] data;
        try {
            data = UserMemory.gather(n.tid(), h.getLong(16), h.getLong(24));
        } catch (Errno e) {
            listener.fail(n, e.code());
            return;
        }
        send(n, s, data, h.getLong(0), h.getInt(8) & 0xffffffffL, flags);
    }

    /** netlink_sendmsg to the kernel's port 0: the family answers into the caller's queue at once. */
    private void send(Notification n, NetlinkSocket s, byte[] data, long address, long addressLength, int flags)
            throws Errno {
        if (data == null) {
            return;
        }
        if ((flags & MSG_OOB) != 0) {
            listener.fail(n, Errno.EOPNOTSUPP);
            return;
        }
        int port = s.peerPort();
        int group = s.peerGroups();
        if (address != 0 && addressLength != 0) {
            ByteBuffer sa = sockaddr(n, address, addressLength);
            if (sa == null) {
                return;
            }
            port = sa.getInt(4);
            group = sa.getInt(8);
            if ((port != 0 || group != 0) && !netAdmin(n.tid())) {
                listener.fail(n, Errno.EPERM);
                return;
            }
        }
        autobind(n, s);
        if (data.length > SNDBUF - 32) {
            listener.fail(n, EMSGSIZE);
            return;
        }
        if (port != 0) {
            listener.fail(n, ECONNREFUSED); // no other user socket lives in the emulated protocol
            return;
        }
        if (!listener.valid(n.id())) {
            return;
        }
        Credentials c = credentials(n.tid());
        NetlinkFamily.Sender sender = new NetlinkFamily.Sender(s.portId(), c.tgid(), c.netAdmin());
        s.queue(NetlinkInput.receive(data, s.family, sender,
                new NetlinkInput.AckOptions(s.option(NETLINK_EXT_ACK), s.option(NETLINK_CAP_ACK)), s.dumpSize()));
        listener.reply(n, data.length);
    }

    private void receiveMessage(Notification n, NetlinkSocket s, long msghdr, int flags) throws Errno {
        ByteBuffer h = msghdr(n, msghdr);
        if (h == null) {
            return;
        }
        long count = h.getLong(24);
        if (count < 0 || count > 1024) {
            listener.fail(n, Errno.EINVAL);
            return;
        }
        long[] iov;
        try {
            ByteBuffer v = ByteBuffer.wrap(ProcessMemory.read(n.tid(), h.getLong(16), (int) count * 16))
                    .order(ByteOrder.nativeOrder());
            iov = new long[(int) count * 2];
            for (int i = 0; i < iov.length; i++) {
                iov[i] = v.getLong();
            }
        } catch (Errno e) {
            listener.fail(n, Errno.EFAULT);
            return;
        }
        receive(n, s, iov, flags, h.getLong(0), 0, msghdr);
    }

    /**
     * netlink_recvmsg: one datagram, truncated to the caller's buffers (MSG_TRUNC in msg_flags; the
     * full length returned when the caller passed MSG_TRUNC), from port 0. The datagram is taken
     * from the caller's own end, duplicated into the daemon for the call.
     */
    private void receive(Notification n, NetlinkSocket s, long[] iov, int flags, long address, long lengthAddress,
            long msghdr) throws Errno {
        if ((flags & MSG_OOB) != 0) {
            listener.fail(n, Errno.EOPNOTSUPP);
            return;
        }
        if ((flags & MSG_ERRQUEUE) != 0) {
            listener.fail(n, Errno.EAGAIN);
            return;
        }
        long room = 0;
        for (int i = 1; i < iov.length; i += 2) {
            room += iov[i];
        }
        s.offered((int) Math.min(room, Integer.MAX_VALUE));
        int dup;
        try {
            dup = Syscalls.callerDescriptor(n.tid(), (int) n.args()[0]);
        } catch (Errno e) {
            listener.fail(n, Errno.EBADF);
            return;
        }
        try {
            if (inode(dup) != s.inode) {
                Syscalls.LIBC.close(dup);
                listener.proceed(n); // the number names another file since the lookup: the kernel's call
                return;
            }
        } catch (Errno e) {
            Syscalls.LIBC.close(dup);
            listener.fail(n, Errno.EBADF);
            return;
        }
        long buf = MEMORY.allocateMemory(RECEIVE_SCRATCH, false);
        try {
            boolean nonblocking = (flags & MSG_DONTWAIT) != 0
                    || (Syscalls.LIBC.syscall(SYS_FCNTL, dup, F_GETFL, 0, 0, 0, 0) & Syscalls.O_NONBLOCK) != 0;
            long got;
            while (true) {
                got = Syscalls.LIBC.syscall(Syscalls.SYS_RECVFROM, dup, buf, RECEIVE_SCRATCH,
                        MSG_DONTWAIT | MSG_TRUNC | (flags & MSG_PEEK), 0, 0);
                if (got >= 0 || Syscalls.errno() != Errno.EAGAIN) {
                    break;
                }
                if (nonblocking) {
                    listener.fail(n, Errno.EAGAIN);
                    return;
                }
                if (!waitReadable(n, dup)) {
                    return; // the caller is gone or interrupted
                }
            }
            if (got < 0) {
                listener.fail(n, Syscalls.errno());
                return;
            }
            int length = (int) got;
            byte[] data = new byte[Math.min(length, RECEIVE_SCRATCH)];
            MEMORY.getByteArray(buf, data, 0, data.length);
            if ((flags & MSG_PEEK) == 0) {
                s.push();
            }
            long copied = scatter(n, iov, data);
            if (copied < 0) {
                return;
            }
            int msgFlags = copied < length ? MSG_TRUNC : 0;
            if (msghdr != 0) {
                if (address != 0 && !writeMessageName(n, msghdr)) {
                    return;
                }
                ByteBuffer tail = ByteBuffer.allocate(16).order(ByteOrder.nativeOrder());
                tail.putLong(0).putInt(msgFlags); // msg_controllen, msg_flags
                ProcessMemory.write(n.tid(), msghdr + 40, tail.array(), 0, 12);
            } else if (address != 0 && lengthAddress != 0) {
                int addressRoom = ByteBuffer.wrap(ProcessMemory.read(n.tid(), lengthAddress, 4))
                        .order(ByteOrder.nativeOrder()).getInt();
                if (addressRoom < 0) {
                    listener.fail(n, Errno.EINVAL);
                    return;
                }
                if (!writeAddress(n, address, lengthAddress, addressRoom, 0, 0)) {
                    return;
                }
            }
            listener.reply(n, (flags & MSG_TRUNC) != 0 ? length : copied);
        } finally {
            MEMORY.freeMemory(buf);
            Syscalls.LIBC.close(dup);
        }
    }

    /** msg_name of a recvmsg: the kernel's address, msg_namelen set to its size. */
    private boolean writeMessageName(Notification n, long msghdr) throws Errno {
        ByteBuffer h = msghdr(n, msghdr);
        if (h == null) {
            return false;
        }
        int room = h.getInt(8);
        byte[] sa = sockaddrNl(0, 0);
        try {
            if (room > 0) {
                ProcessMemory.write(n.tid(), h.getLong(0), sa, 0, Math.min(room, SOCKADDR_NL));
            }
            ProcessMemory.write(n.tid(), msghdr + 8, intBytes(SOCKADDR_NL), 0, 4);
        } catch (Errno e) {
            listener.fail(n, Errno.EFAULT);
            return false;
        }
        return true;
    }

    /** Copies {@code data} into the caller's iovecs; the bytes copied, or -1 after failing the call. */
    private long scatter(Notification n, long[] iov, byte[] data) {
        int at = 0;
        for (int i = 0; i + 1 < iov.length && at < data.length; i += 2) {
            int chunk = (int) Math.min(iov[i + 1], data.length - at);
            if (chunk <= 0) {
                continue;
            }
            try {
                ProcessMemory.write(n.tid(), iov[i], data, at, chunk);
            } catch (Errno e) {
                listener.fail(n, Errno.EFAULT);
                return -1;
            }
            at += chunk;
        }
        return at;
    }

    /** Waits up to a quarter second for the caller's end to be readable; false (answered) if the caller left. */
    private boolean waitReadable(Notification n, int fd) {
        long pfd = MEMORY.allocateMemory(8, true);
        try {
            MEMORY.putInt(pfd, fd);
            MEMORY.putShort(pfd + 4, Syscalls.POLLIN);
            Syscalls.LIBC.poll(pfd, 1, 250);
        } finally {
            MEMORY.freeMemory(pfd);
        }
        if (listener.closing()) {
            listener.fail(n, Errno.EINTR); // the daemon stops: no caller waits on it forever
            return false;
        }
        return listener.valid(n.id());
    }

    private void autobind(Notification n, NetlinkSocket s) {
        synchronized (s) {
            if (!s.bound()) {
                s.bind(sockets.autobind(tgid(n.tid())), s.groups());
            }
        }
    }

    /** A sockaddr_nl the caller passed: null (the call failed) if short, unreadable or not AF_NETLINK. */
    private ByteBuffer sockaddr(Notification n, long address, long length) {
        if (length < SOCKADDR_NL || address == 0) {
            listener.fail(n, Errno.EINVAL);
            return null;
        }
        try {
            ByteBuffer sa = ByteBuffer.wrap(ProcessMemory.read(n.tid(), address, SOCKADDR_NL))
                    .order(ByteOrder.nativeOrder());
            if ((sa.getShort(0) & 0xffff) != AF_NETLINK) {
                listener.fail(n, Errno.EINVAL);
                return null;
            }
            return sa;
        } catch (Errno e) {
            listener.fail(n, Errno.EFAULT);
            return null;
        }
    }

    private int shortAt(Notification n, long address) {
        try {
            return ByteBuffer.wrap(ProcessMemory.read(n.tid(), address, 2)).order(ByteOrder.nativeOrder()).getShort()
                    & 0xffff;
        } catch (Errno e) {
            return -1;
        }
    }

    private ByteBuffer msghdr(Notification n, long address) {
        try {
            return ByteBuffer.wrap(ProcessMemory.read(n.tid(), address, 56)).order(ByteOrder.nativeOrder());
        } catch (Errno e) {
            listener.fail(n, Errno.EFAULT);
            return null;
        }
    }

    private byte[] read(Notification n, long address, long length) {
        if (length < 0 || length > Integer.MAX_VALUE) {
            listener.fail(n, EMSGSIZE);
            return null;
        }
        try {
            return ProcessMemory.read(n.tid(), address, (int) length);
        } catch (Errno e) {
            listener.fail(n, Errno.EFAULT);
            return null;
        }
    }

    /** move_addr_to_user: at most {@code room} bytes of the address, its full size into *lengthAddress. */
    private boolean writeAddress(Notification n, long address, long lengthAddress, int room, int port, int groups) {
        try {
            if (room > 0) {
                ProcessMemory.write(n.tid(), address, sockaddrNl(port, groups), 0, Math.min(room, SOCKADDR_NL));
            }
            ProcessMemory.write(n.tid(), lengthAddress, intBytes(SOCKADDR_NL), 0, 4);
            return true;
        } catch (Errno e) {
            listener.fail(n, Errno.EFAULT);
            return false;
        }
    }

    private static byte[] sockaddrNl(int port, int groups) {
        return ByteBuffer.allocate(SOCKADDR_NL).order(ByteOrder.nativeOrder()).putShort((short) AF_NETLINK)
                .putShort((short) 0).putInt(port).putInt(groups).array();
    }

    private static boolean isFlag(int name) {
        for (int f : FLAG_OPTIONS) {
            if (f == name) {
                return true;
            }
        }
        return false;
    }

    private static byte[] intBytes(int v) {
        return ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(v).array();
    }

    static long inode(int fd) throws Errno {
        long scratch = MEMORY.allocateMemory(Syscalls.STATX_SIZE + 1, true);
        try {
            Syscalls.syscall(Syscalls.SYS_STATX, fd, scratch + Syscalls.STATX_SIZE, Syscalls.AT_EMPTY_PATH,
                    Syscalls.STATX_INO, scratch);
            return MEMORY.getLong(scratch + Syscalls.STATX_INO_OFFSET);
        } finally {
            MEMORY.freeMemory(scratch);
        }
    }

    /** A thread's process and whether it holds CAP_NET_ADMIN (netlink_capable, initial namespace). */
    record Credentials(int tgid, boolean netAdmin) {
    }

    /** Tgid and CapEff from /proc/TID/status, read once (a gone thread: itself, no capability). */
    static Credentials credentials(int tid) {
        byte[] text;
        try {
            text = Files.readAllBytes(Path.of("/proc", Integer.toString(tid), "status"));
        } catch (IOException e) {
            return new Credentials(tid, false);
        }
        String status = new String(text, java.nio.charset.StandardCharsets.US_ASCII);
        try {
            int tgid = Integer.parseInt(field(status, "\nTgid:"));
            long caps = Long.parseUnsignedLong(field(status, "\nCapEff:"), 16);
            return new Credentials(tgid, (caps & (1L << CAP_NET_ADMIN)) != 0);
        } catch (NumberFormatException | IndexOutOfBoundsException e) {
            return new Credentials(tid, false);
        }
    }

    private static String field(String status, String key) {
        int at = status.indexOf(key) + key.length();
        int end = status.indexOf('\n', at);
        return status.substring(at, end < 0 ? status.length() : end).strip();
    }

    static int tgid(int tid) {
        return credentials(tid).tgid();
    }

    static boolean netAdmin(int tid) {
        return credentials(tid).netAdmin();
    }
}
