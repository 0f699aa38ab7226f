package io.ibemu.devfs.supervise;

import io.ibemu.devfs.device.DeviceFile;
import io.ibemu.devfs.device.DeviceNode;
import io.ibemu.devfs.device.MappableFile;
import io.ibemu.devfs.device.MessageFile;
import io.ibemu.devfs.supervise.Listener.Notification;
import io.ibemu.kernel.Errno;
import io.ibemu.kernel.ProcessMemory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.ibemu.devfs.supervise.Syscalls.MEMORY;

/**
 * The calls on a supervised node and on the descriptors its opens made: open/openat/openat2 of
 * the node (the device opens; the file lands in the reserved range, a FUSE file or a socket
 * pair), fstat/newfstatat/statx of a range descriptor (the node's own stat), and write/writev
 * (the device takes the whole buffer in one call); mmap of a memfd-carried file (checked by its
 * device), and the seek, positioned I/O and size calls such a file would otherwise serve itself.
 * read, ioctl and dup of socket-carried and memfd-carried files are {@link SocketFileCalls}';
 * netlink sockets are {@link NetlinkCalls}'.
 */
final class NodeCalls {
    private static final long PAGE_SIZE = 4096;
    private static final long MAP_TYPE = 0x0f;
    private static final long MAP_SHARED = 0x01;
    private static final long MAP_SHARED_VALIDATE = 0x03;
    private static final long PROT_WRITE = 0x2;

    private final Listener listener;
    private final Supervisor supervisor;
    private final NetlinkCalls netlink;

    NodeCalls(Listener listener, Supervisor supervisor, NetlinkCalls netlink) {
        this.listener = listener;
        this.supervisor = supervisor;
        this.netlink = netlink;
    }

    /** open/openat/openat2 of a supervised node: the device opens, the file lands in the reserved range. */
    void open(Notification n) throws Errno {
        long[] a = n.args();
        long pathAddress = n.nr() == Syscalls.SYS_OPEN ? a[0] : a[1];
        long flags;
        if (n.nr() == Syscalls.SYS_OPENAT2) {
            if (a[3] < 8) {
                listener.proceed(n);
                return;
            }
            flags = UserMemory.readLong(n.tid(), a[2]); // struct open_how starts with u64 flags
        } else {
            flags = n.nr() == Syscalls.SYS_OPEN ? a[1] : a[2];
        }
        String path = flags == Long.MIN_VALUE ? null : UserMemory.readPath(n.tid(), pathAddress,
                Math.max(supervisor.devices().longestNodePath(), REOPEN_PATH_MAX));
        DeviceNode node = path == null || (flags & Syscalls.O_PATH) != 0 ? null : supervisor.devices().node(path);
        if (node == null && path != null && (flags & Syscalls.O_PATH) == 0) {
            node = reopened(n.tid(), path);
        }
        if (node == null) {
            listener.proceed(n);
            return;
        }
        if (!listener.valid(n.id())) {
            return; // what was read may be stale; the kernel dropped the call
        }
        int openFlags = (int) flags;
        if (!permitted(node, SupervisedCaller.credentials(n.tid()), openFlags)) {
            listener.fail(n, Errno.EACCES);
        } else if ((openFlags & (Syscalls.O_CREAT | Syscalls.O_EXCL)) == (Syscalls.O_CREAT | Syscalls.O_EXCL)) {
            listener.fail(n, Errno.EEXIST);
        } else {
            openNode(n, node, openFlags);
        }
    }

    /** The longest /proc/PID/task/TID/fd/N there is. */
    private static final int REOPEN_PATH_MAX = 40;
    /** A number as proc's name_to_int takes it: no leading zero, and small enough to be one. */
    private static final String NUMBER = "(?:0|[1-9]\\d{0,8})";
    private static final Pattern REOPEN = Pattern.compile(
            "/(?:proc/(self|thread-self|" + NUMBER + "(?:/task/" + NUMBER + ")?)|dev)/fd/(" + NUMBER + ")");

    /**
     * The node a range descriptor is an open of, when {@code path} names that descriptor through
     * /proc/PID/fd/N or /dev/fd/N: on the kernel such an open follows the link to the char device
     * and opens it anew (chrdev_open), a new file of the device. Here it must: left to the kernel it
     * would open the memfd or FUSE file that carries the descriptor, whose close would then read as
     * the carried file's release while the first descriptor still holds it.
     */
    private DeviceNode reopened(int tid, String path) {
        // every open of the program comes here: no matcher for a path that cannot be one
        if (!path.startsWith("/proc/") && !path.startsWith("/dev/fd/")) {
            return null;
        }
        Matcher m = REOPEN.matcher(path);
        if (!m.matches()) {
            return null;
        }
        String who = m.group(1);
        int owner = who == null || who.equals("self") || who.equals("thread-self") ? tid
                : Integer.parseInt(who.substring(who.lastIndexOf('/') + 1));
        return listener.nodeOf(owner, Long.parseLong(m.group(2)));
    }

    /** The node's current mode and owner decide, as for a kernel node; unreadable: its declared ones. */
    private boolean permitted(DeviceNode node, DeviceNode.Credentials caller, int openFlags) {
        try {
            Map<String, Object> now = Files.readAttributes(supervisor.devices().nodePath(node), "unix:mode,uid,gid",
                    LinkOption.NOFOLLOW_LINKS);
            return DeviceNode.permits(caller, openFlags, (Integer) now.get("mode") & 07777, (Integer) now.get("uid"),
                    (Integer) now.get("gid"));
        } catch (IOException | RuntimeException e) {
            return node.permits(caller, openFlags);
        }
    }

    private void openNode(Notification n, DeviceNode node, int openFlags) {
        int local;
        boolean carried;
        try {
            DeviceFile file = node.device().open(new SupervisedCaller(listener, n.id(), n.tid()), openFlags);
            carried = !node.supervisedIo() && file instanceof MessageFile && supervisor.socketFiles() != null
                    && !Supervisor.wantsFuseFiles(n.tid());
            if (node.supervisedIo() && file instanceof MappableFile m && supervisor.mappedFiles() != null) {
                carried = true; // installed in the range, as a socket-carried file is
                local = supervisor.mappedFiles().open(node, m, openFlags);
            } else {
                local = carried ? openSocketFile(node, (MessageFile) file, openFlags)
                        : supervisor.openFile(node.supervisedIo() ? node : null, file, openFlags);
            }
        } catch (Errno e) {
            listener.fail(n, e.code());
            return;
        }
        try {
            if (!node.supervisedIo() && !carried) {
                // get_unused_fd_flags: the lowest free number; the FUSE file serves all that follows
                listener.addFd(n.id(), local, 0, Syscalls.ADDFD_SEND, openFlags & Syscalls.O_CLOEXEC);
                return;
            }
            int target = listener.lowestFree(n.tid());
            if (target < 0) {
                listener.fail(n, Errno.EMFILE);
                return;
            }
            listener.addFd(n.id(), local, target, Syscalls.ADDFD_SETFD | Syscalls.ADDFD_SEND,
                    openFlags & Syscalls.O_CLOEXEC);
        } catch (Errno e) {
            listener.fail(n, e.code()); // SEND failed: the call is still waiting for an answer
        } finally {
            Syscalls.LIBC.close(local); // the caller's descriptor now holds the open file
        }
    }

    /**
     * The caller's end of a new socket pair carrying {@code file}, with the open's O_NONBLOCK; a
     * failure after this closes it, and the pair's hang-up releases the file.
     */
    private int openSocketFile(DeviceNode node, MessageFile file, int openFlags) throws Errno {
        int remote;
        try {
            remote = supervisor.socketFiles().open(node, file, openFlags & Syscalls.O_ACCMODE);
        } catch (Errno e) {
            file.release();
            throw e;
        }
        if ((openFlags & Syscalls.O_NONBLOCK) != 0) {
            try {
                Syscalls.syscall(Syscalls.SYS_FCNTL, remote, Syscalls.F_SETFL, Syscalls.O_NONBLOCK, 0, 0);
            } catch (Errno e) {
                Syscalls.LIBC.close(remote);
                throw e;
            }
        }
        return remote;
    }

    /**
     * mmap of a range descriptor: a memfd-carried file's device checks offset and size as its
     * driver's mmap would (after the generic checks of do_mmap that come first), then the kernel
     * maps the memfd's pages; any other file's mmap is its own.
     */
    void mmap(Notification n) throws Errno {
        long[] a = n.args();
        NodeFile f = listener.mappedFile(n.tid(), a[4]);
        if (f == null || !(f.file instanceof MappableFile m)) {
            listener.proceed(n);
            return;
        }
        long length = a[1];
        long prot = a[2];
        long flags = a[3];
        long offset = a[5];
        boolean shared = (flags & MAP_TYPE) == MAP_SHARED || (flags & MAP_TYPE) == MAP_SHARED_VALIDATE;
        if (length == 0 || (offset & (PAGE_SIZE - 1)) != 0) {
            listener.fail(n, Errno.EINVAL);
        } else if ((f.flags & Syscalls.O_ACCMODE) == Syscalls.O_WRONLY
                || shared && (prot & PROT_WRITE) != 0 && (f.flags & Syscalls.O_ACCMODE) != Syscalls.O_RDWR) {
            listener.fail(n, Errno.EACCES);
        } else {
            try {
                m.mmap(offset, length, (int) prot, (int) flags);
                listener.proceed(n);
            } catch (Errno e) {
                listener.fail(n, e.code());
            }
        }
    }

    /**
     * lseek, positioned reads and writes, ftruncate, fallocate of a memfd-carried file: what the
     * kernel answers for a nonseekable char device (no_llseek, no FMODE_PREAD/PWRITE: ESPIPE;
     * do_sys_ftruncate of a non-regular file: EINVAL; vfs_fallocate: ENODEV), not the memfd's.
     */
    void positioned(Notification n) {
        if (listener.mappedFile(n.tid(), n.args()[0]) == null) {
            listener.proceed(n);
            return;
        }
        listener.fail(n, switch (n.nr()) {
            case Syscalls.SYS_FTRUNCATE -> Errno.EINVAL;
            case Syscalls.SYS_FALLOCATE -> Errno.ENODEV;
            default -> Errno.ESPIPE;
        });
    }

    /** fstat/newfstatat/statx(AT_EMPTY_PATH) of a range fd: the node's own stat. */
    void stat(Notification n) throws Errno {
        long[] a = n.args();
        if (n.nr() != Syscalls.SYS_FSTAT && a[1] != 0 && UserMemory.readByte(n.tid(), a[1]) != 0) {
            listener.proceed(n); // a path relative to the fd: not an fstat
            return;
        }
        DeviceNode node = listener.nodeOf(n.tid(), a[0]);
        if (node == null) {
            listener.proceed(n);
            return;
        }
        if (!listener.valid(n.id())) {
            return;
        }
        long buf = Listener.scratch() + Listener.AT_STAT;
        String nodePath = supervisor.devices().nodePath(node).toString();
        Syscalls.putString(Listener.scratch() + Listener.AT_NODE_PATH, nodePath);
        int size;
        long target;
        try {
            if (n.nr() == Syscalls.SYS_STATX) {
                Syscalls.syscall(Syscalls.SYS_STATX, Syscalls.AT_FDCWD, Listener.scratch() + Listener.AT_NODE_PATH,
                        a[2] & ~Syscalls.AT_EMPTY_PATH, a[3], buf);
                size = Syscalls.STATX_SIZE;
                target = a[4];
            } else {
                Syscalls.syscall(Syscalls.SYS_NEWFSTATAT, Syscalls.AT_FDCWD, Listener.scratch() + Listener.AT_NODE_PATH,
                        buf, 0, 0);
                size = Syscalls.STAT_SIZE;
                target = n.nr() == Syscalls.SYS_FSTAT ? a[1] : a[2];
            }
        } catch (Errno e) {
            listener.fail(n, e.code());
            return;
        }
        byte[] answer = new byte[size];
        MEMORY.getByteArray(buf, answer, 0, size);
        asCharDevice(answer, node, n.nr() == Syscalls.SYS_STATX);
        try {
            ProcessMemory.write(n.tid(), target, answer, 0, size);
        } catch (Errno e) {
            listener.fail(n, Errno.EFAULT);
            return;
        }
        listener.reply(n, 0);
    }

    // struct stat and struct statx (x86_64): where the type and the device number are
    private static final int STAT_MODE = 24, STAT_RDEV = 40, STATX_MODE = 28, STATX_RDEV_MAJOR = 128,
            STATX_RDEV_MINOR = 132, S_IFMT = 0170000, S_IFCHR = 0020000;

    /**
     * In a user namespace the node's path holds an empty file, not a device node (no mknod there):
     * the answer gets the type and number the node has, as cp_new_stat/cp_statx would give them.
     */
    private static void asCharDevice(byte[] st, DeviceNode node, boolean statx) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(st).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        int mode = statx ? b.getShort(STATX_MODE) & 0xffff : b.getInt(STAT_MODE);
        if ((mode & S_IFMT) == S_IFCHR) {
            return;
        }
        mode = (mode & ~S_IFMT) | S_IFCHR;
        if (statx) {
            b.putShort(STATX_MODE, (short) mode);
            b.putInt(STATX_RDEV_MAJOR, node.major());
            b.putInt(STATX_RDEV_MINOR, node.minor());
        } else {
            b.putInt(STAT_MODE, mode);
            long major = node.major(), minor = node.minor();
            b.putLong(STAT_RDEV, ((major & 0xfffL) << 8) | ((major & ~0xfffL) << 32) | (minor & 0xffL) | ((minor & ~0xffL) << 12));
        }
    }

    /** write/writev on a range fd of a node: the device serves the whole buffer. */
    void write(Notification n) throws Errno {
        long[] a = n.args();
        Object found = listener.rangeFile(n.tid(), a[0]);
        NodeFile file = found instanceof NodeFile f ? f : null;
        SocketFile carried = found instanceof SocketFile s ? s : null;
        if (found == null) {
            writeSocket(n);
            return;
        }
        if (carried != null && !carried.writable()) {
            listener.fail(n, Errno.EBADF);
            return;
        }
        if (n.nr() == Syscalls.SYS_PWRITE64) {
            listener.fail(n, Errno.ESPIPE); // a stream device (stream_open) has no positioned writes
            return;
        }
        byte[] data;
        try {
            data = written(n);
        } catch (Errno e) {
            listener.fail(n, e.code());
            return;
        }
        if (!listener.valid(n.id())) {
            return;
        }
        SupervisedCaller caller = new SupervisedCaller(listener, n.id(), n.tid()).on((int) a[0]);
        try {
            listener.reply(n, file != null ? file.file.write(caller, ByteBuffer.wrap(data), file.flags)
                    : carried.file.write(caller, ByteBuffer.wrap(data), carried.accessMode()));
        } catch (Errno e) {
            listener.fail(n, e.code());
        }
    }

    /** write/writev on an emulated netlink socket is a send; anything else continues. */
    private void writeSocket(Notification n) throws Errno {
        if (n.nr() == Syscalls.SYS_PWRITE64 || supervisor.netlinkSockets().isEmpty()) {
            listener.proceed(n);
            return;
        }
        byte[] data;
        try {
            data = written(n);
        } catch (Errno e) {
            listener.proceed(n);
            return;
        }
        if (!netlink.write(n, data)) {
            listener.proceed(n);
        }
    }

    /** The buffer of a write (or pwrite64) or the iovecs of a writev, joined. */
    private static byte[] written(Notification n) throws Errno {
        long[] a = n.args();
        return n.nr() == Syscalls.SYS_WRITEV ? UserMemory.gather(n.tid(), a[1], a[2])
                : UserMemory.writeBuffer(n.tid(), a[1], a[2]);
    }
}
