package io.ibemu.devfs.supervise;

import io.ibemu.devfs.supervise.Listener.Notification;
import io.ibemu.kernel.Errno;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static io.ibemu.devfs.supervise.Syscalls.MEMORY;

/**
 * rt_sigreturn of a supervised task: the one place that decides whether a signal's EINTR came
 * from the supervisor's window (the call never reached a listener thread) rather than from the
 * kernel, and then returns the handler into the call again.
 */
final class SignalCalls {

    private static final int AF_NETLINK = 16;
    private static final int NETLINK_RDMA = 20;
    private static final int PATH_MAX = 4096;
    private static final int SYS_STATFS = 137;
    /** struct statfs (x86_64): f_type first. */
    private static final int STATFS_SIZE = 120;
    private static final long FUSE_SUPER_MAGIC = 0x65735546L;
    private static final int STATX_TYPE = 0x1;
    private static final int STATX_MODE_OFFSET = 28;
    private static final int S_IFMT = 0170000;
    private static final int S_IFREG = 0100000;
    private static final int S_IFDIR = 0040000;

    private final Listener listener;
    private final Supervisor supervisor;
    private final NetlinkCalls netlink;

    SignalCalls(Listener listener, Supervisor supervisor, NetlinkCalls netlink) {
        this.listener = listener;
        this.supervisor = supervisor;
        this.netlink = netlink;
    }

    /**
     * rt_sigreturn: a handler returns. If its signal ended one of the calls this filter notifies
     * before a thread here received it, the call never ran and its EINTR is not the kernel's:
     * the handler returns into the call again ({@link SignalFrame}).
     */
    void signalReturn(Notification n) {
        SignalFrame frame = SignalFrame.of(n.tid(), Listener.scratch() + Listener.AT_NODE_PATH);
        int nr = frame == null ? -1 : frame.interruptedCall();
        if (nr >= 0 && restartable(n.tid(), nr, frame.arguments()) && listener.valid(n.id())) {
            try {
                frame.restart(nr);
                supervisor.restarted();
            } catch (Errno e) {
                // the frame became unreadable: the handler returns the EINTR it has
            }
        }
        listener.proceed(n);
    }

    /**
     * The filter notifies this call (the stub's program, mirrored) and the kernel itself would
     * not have ended it with EINTR: a device file's write, ioctl or fstat, or an open that cannot sleep
     * interruptibly. A FIFO, a FUSE file (issm's blocking open among them) or a tty may: those keep
     * their EINTR, which may be the kernel's own.
     */
    private boolean restartable(int tid, int nr, long[] a) {
        return switch (nr) {
            case Syscalls.SYS_WRITE, Syscalls.SYS_WRITEV, Syscalls.SYS_PWRITE64 ->
                    deviceFile(tid, a[0]) || netlink.emulated(tid, a[0]);
            // uverbs' and umad's ioctls never sleep interruptibly either (libibverbs tunnels
            // every verb, REQ_NOTIFY_CQ among them, through RDMA_VERBS_IOCTL)
            case Syscalls.SYS_FSTAT, Syscalls.SYS_IOCTL -> deviceFile(tid, a[0]);
            // the kernel's netlink socket calls never sleep interruptibly but in a receive
            case NetlinkCalls.SYS_SOCKET -> netlinkSocket(a);
            case NetlinkCalls.SYS_SENDTO, NetlinkCalls.SYS_SENDMSG, NetlinkCalls.SYS_BIND, NetlinkCalls.SYS_CONNECT,
                    NetlinkCalls.SYS_GETSOCKNAME, NetlinkCalls.SYS_GETPEERNAME, NetlinkCalls.SYS_SETSOCKOPT,
                    NetlinkCalls.SYS_GETSOCKOPT -> netlink.emulated(tid, a[0]);
            case Syscalls.SYS_NEWFSTATAT -> (a[3] & Syscalls.AT_EMPTY_PATH) != 0 && deviceFile(tid, a[0]);
            case Syscalls.SYS_STATX -> (a[2] & Syscalls.AT_EMPTY_PATH) != 0 && deviceFile(tid, a[0]);
            case Syscalls.SYS_OPEN -> (a[1] & Syscalls.O_ACCMODE) != 0 && opensAtOnce(tid, Syscalls.AT_FDCWD, a[0]);
            case Syscalls.SYS_OPENAT -> (a[2] & Syscalls.O_ACCMODE) != 0 && opensAtOnce(tid, (int) a[0], a[1]);
            case Syscalls.SYS_OPENAT2 -> opensAtOnce(tid, (int) a[0], a[1]);
            default -> false;
        };
    }

    /** socket(AF_NETLINK, *, NETLINK_RDMA): what the filter notifies of socket(). */
    private static boolean netlinkSocket(long[] a) {
        return a[0] == AF_NETLINK && a[2] == NETLINK_RDMA;
    }

    /** A range descriptor of {@code tid} that is an open of one of our nodes. */
    private boolean deviceFile(int tid, long fdArgument) {
        return listener.nodeOf(tid, fdArgument) != null;
    }

    /**
     * An open of one of our nodes, of a regular file or directory outside FUSE, or of nothing
     * yet. Two syscalls (statx, statfs) and no mount-table walk: the storm of a handled signal
     * every few hundred µs must not end this rt_sigreturn's wait before it is answered.
     */
    private boolean opensAtOnce(int tid, int dirfd, long pathAddress) {
        String path = UserMemory.readPath(tid, pathAddress, PATH_MAX);
        if (path == null) {
            return false;
        }
        if (path.startsWith("/") && supervisor.devices().node(path) != null) {
            return true;
        }
        String proc = "/proc/" + tid;
        String seen = (path.startsWith("/") ? Path.of(proc, "root", path.substring(1))
                : Path.of(proc, dirfd == Syscalls.AT_FDCWD ? "cwd" : "fd/" + dirfd).resolve(path)).toString();
        int bytes = seen.getBytes(StandardCharsets.UTF_8).length + 1;
        long memory = MEMORY.allocateMemory(Syscalls.STATX_SIZE + STATFS_SIZE + bytes, false);
        try {
            long statx = memory;
            long statfs = memory + Syscalls.STATX_SIZE;
            long name = statfs + STATFS_SIZE;
            Syscalls.putString(name, seen);
            if (Syscalls.statx(Syscalls.AT_FDCWD, name, 0, STATX_TYPE, statx) != 0) {
                return Syscalls.errno() == Errno.ENOENT;
            }
            int type = MEMORY.getShort(statx + STATX_MODE_OFFSET) & S_IFMT;
            return (type == S_IFREG || type == S_IFDIR)
                    && Syscalls.LIBC.syscall(SYS_STATFS, name, statfs, 0, 0, 0, 0) == 0
                    && MEMORY.getLong(statfs) != FUSE_SUPER_MAGIC;
        } finally {
            MEMORY.freeMemory(memory);
        }
    }
}
