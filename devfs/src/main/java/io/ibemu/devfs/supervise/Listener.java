package io.ibemu.devfs.supervise;

import io.ibemu.devfs.DeviceFile;
import io.ibemu.devfs.DeviceNode;
import io.ibemu.devfs.Errno;
import io.ibemu.devfs.Fatal;
import io.ibemu.devfs.MappableFile;
import io.ibemu.devfs.MessageFile;
import io.ibemu.devfs.ProcessMemory;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import static io.ibemu.devfs.supervise.Syscalls.MEMORY;

/**
 * One seccomp notification listener: the process tree one stub started. One thread at a time
 * waits in SECCOMP_IOCTL_NOTIF_RECV (two at once were slower; close signals it out, see
 * {@link ReceiverWake}), then serves the call itself: handing each call to another thread cost 20 µs. When every thread has
 * been serving a while (a device call that blocks), the supervisor's watchdog starts a spare.
 * Every notification is answered: CONTINUE when it is not about a supervised device, else the
 * device's result or an errno.
 */
final class Listener {

    private static final System.Logger LOG = System.getLogger(Listener.class.getName());
    private static final int POLL_MS = 250;
    private static final int MAX_WRITE = 64 << 20;
    private static final int IOV_MAX = 1024;
    private static final int PAGE = 4096;
    private static final long PAGE_SIZE = PAGE;
    private static final long MAP_TYPE = 0x0f;
    private static final long MAP_SHARED = 0x01;
    private static final long MAP_SHARED_VALIDATE = 0x03;
    private static final long PROT_WRITE = 0x2;
    private static final int PATH_MAX = 4096;
    private static final int AF_NETLINK = 16;
    private static final int NETLINK_RDMA = 20;
    private static final int ENOTSOCK = 88;
    private static final int SYS_STATFS = 137;
    /** struct statfs (x86_64): f_type first. */
    private static final int STATFS_SIZE = 120;
    private static final long FUSE_SUPER_MAGIC = 0x65735546L;
    private static final int STATX_TYPE = 0x1;
    private static final int STATX_MODE_OFFSET = 28;
    private static final int S_IFMT = 0170000;
    private static final int S_IFREG = 0100000;
    private static final int S_IFDIR = 0040000;

    // the per-thread scratch: struct seccomp_notif, a reply or addfd, a pollfd, a /proc path, a stat
    private static final int AT_NOTIF = 0;
    private static final int AT_REPLY = 128;
    private static final int AT_POLLFD = 256;
    private static final int AT_PROC_PATH = 512;
    private static final int AT_STAT = 1024;
    private static final int AT_NODE_PATH = 2048;
    private static final int SCRATCH = 8192;
    private static final ThreadLocal<Scratch> SCRATCHES = ThreadLocal.withInitial(Scratch::new);

    /** A thread's scratch memory, its address (a JNI call each time otherwise) and its kernel tid, asked once. */
    private static final class Scratch {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(SCRATCH);
        final long address = MEMORY.getDirectBufferAddress(buffer);
        final int tid = (int) Syscalls.LIBC.syscall(Syscalls.SYS_GETTID, 0, 0, 0, 0, 0, 0);
    }

    private final Supervisor supervisor;
    private final NetlinkCalls netlink;
    private final SocketFileCalls socketCalls;
    private final int fd;
    private final int base;
    private final int count;
    /** Each thread holds one reference, and so does the supervisor until the listener is started; the last closes fd. */
    private final AtomicInteger references = new AtomicInteger(1);
    private final AtomicInteger threads = new AtomicInteger();
    /** Threads receiving or waiting to. */
    private final AtomicInteger receivers = new AtomicInteger();
    private final ReentrantLock receiving = new ReentrantLock();
    private volatile long lastServeStart;
    /** The kernel tid of the thread blocked in SECCOMP_IOCTL_NOTIF_RECV; 0 while none is. */
    private volatile int receiverTid;

    /** A notification: {@code struct seccomp_notif}'s id, caller tid, syscall number and arguments. */
    record Notification(long id, int tid, int nr, long[] args) {
    }

    Listener(Supervisor supervisor, int fd, int base, int count) {
        this.supervisor = supervisor;
        this.netlink = new NetlinkCalls(this, supervisor.netlinkSockets());
        this.socketCalls = new SocketFileCalls(this, supervisor);
        this.fd = fd;
        this.base = base;
        this.count = count;
    }

    void start() {
        // caller and server hand over like a synchronous call (seccomp_notify_set_flags, 6.6+):
        // the wakee runs on the waker's CPU instead of paying a cross-CPU wake-up each way;
        // older kernels refuse the ioctl (EINVAL) and keep the default wake-ups
        Syscalls.LIBC.ioctl(fd, Syscalls.NOTIF_SET_FLAGS, Syscalls.NOTIF_FD_SYNC_WAKE_UP);
        startThread();
        release();
    }

    /** Another thread that receives and serves; the first, or a spare when every thread is busy. */
    void startThread() {
        int held;
        do {
            held = references.get();
            if (held == 0) {
                return; // ended: the descriptor is closed
            }
        } while (!references.compareAndSet(held, held + 1));
        threads.incrementAndGet();
        try {
            supervisor.execute(this::work);
        } catch (RejectedExecutionException closing) {
            threads.decrementAndGet();
            release();
        }
    }

    /**
     * A thread's life: take the receive lock, receive, let go, serve the call itself (no
     * hand-off on the caller's path). A thread that finds another receiving after a call ends,
     * so spares last only while calls block.
     */
    private void work() {
        try {
            while (true) {
                Notification n;
                receivers.incrementAndGet();
                receiving.lock();
                try {
                    n = receive();
                } finally {
                    receiving.unlock();
                    receivers.decrementAndGet();
                }
                if (n == null) {
                    return;
                }
                lastServeStart = System.nanoTime();
                serve(n);
                if (receivers.get() > 0 && threads.get() > 1) {
                    return;
                }
            }
        } finally {
            threads.decrementAndGet();
            release();
        }
    }

    /** True when every thread has been serving for at least {@code nanos}: time for a spare. */
    boolean stuck(long nanos) {
        return receivers.get() == 0 && threads.get() > 0 && System.nanoTime() - lastServeStart > nanos;
    }

    private void release() {
        if (references.decrementAndGet() == 0) {
            Syscalls.LIBC.close(fd);
            supervisor.ended(this);
        }
    }

    /** The next notification; null once no task uses the filter or the supervisor closes. */
    private Notification receive() {
        Scratch own = SCRATCHES.get();
        long scratch = own.address;
        while (!supervisor.closing()) {
            if (!ReceiverWake.AVAILABLE) {
                // no way to end a blocked RECV at close: wait in poll, which looks at closing() each tick
                int ready = poll(scratch, POLL_MS);
                if (ready < 0 && Syscalls.errno() != Errno.EINTR) {
                    LOG.log(System.Logger.Level.ERROR, "poll of seccomp listener failed: errno {0}", Syscalls.errno());
                    return null;
                }
                if (ready <= 0) {
                    continue;
                }
                if ((MEMORY.getShort(scratch + AT_POLLFD + 6) & Syscalls.POLLIN) == 0) {
                    return null; // POLLHUP: the supervised tree has exited
                }
            }
            for (int i = 0; i < Syscalls.NOTIF_SIZE; i += 8) {
                MEMORY.putLong(scratch + AT_NOTIF + i, 0); // RECV wants it zeroed; setMemory is a VM call
            }
            // blocked in RECV itself, not in a poll before it: a syscall and a wake-up less per
            // call; close() signals the thread out (ReceiverWake), so it says where it waits first
            receiverTid = own.tid;
            if (supervisor.closing()) {
                receiverTid = 0;
                return null;
            }
            int received = Syscalls.LIBC.ioctl(fd, Syscalls.NOTIF_RECV, scratch + AT_NOTIF);
            receiverTid = 0;
            if (received == 0) {
                long[] args = new long[6];
                for (int i = 0; i < 6; i++) {
                    args[i] = MEMORY.getLong(scratch + AT_NOTIF + Syscalls.NOTIF_ARGS + 8L * i);
                }
                return new Notification(MEMORY.getLong(scratch + AT_NOTIF + Syscalls.NOTIF_ID),
                        MEMORY.getInt(scratch + AT_NOTIF + Syscalls.NOTIF_PID),
                        MEMORY.getInt(scratch + AT_NOTIF + Syscalls.NOTIF_NR), args);
            }
            int errno = Syscalls.errno();
            if (errno == Errno.ENOENT) {
                // the caller died meanwhile, or no task uses the filter any more: RECV then
                // returns at once (seccomp's recv_wait_event), and only poll tells which
                if (poll(scratch, 0) > 0 && (MEMORY.getShort(scratch + AT_POLLFD + 6) & Syscalls.POLLIN) == 0) {
                    return null;
                }
            } else if (errno != Errno.EINTR) {
                LOG.log(System.Logger.Level.ERROR, "SECCOMP_IOCTL_NOTIF_RECV failed: errno {0}", errno);
                return null;
            }
        }
        return null;
    }

    /** poll(2) of the listener for POLLIN; its revents at {@code scratch + AT_POLLFD + 6}. */
    private int poll(long scratch, int timeoutMs) {
        MEMORY.putInt(scratch + AT_POLLFD, fd);
        MEMORY.putInt(scratch + AT_POLLFD + 4, Syscalls.POLLIN);
        return Syscalls.LIBC.poll(scratch + AT_POLLFD, 1, timeoutMs);
    }

    /**
     * Ends the wait of the thread blocked in RECV, if any, once the supervisor is closing: it
     * signals that thread until it has left (a signal that comes just before the thread enters
     * the ioctl is lost, so once is not enough), for at most a second.
     */
    void wake() {
        long deadline = System.nanoTime() + 1_000_000_000L;
        for (int tid = receiverTid; tid != 0 && System.nanoTime() < deadline; tid = receiverTid) {
            ReceiverWake.signal(tid);
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    // ---- serving ----

    private void serve(Notification n) {
        try {
            switch (n.nr()) {
                case Syscalls.SYS_OPEN, Syscalls.SYS_OPENAT, Syscalls.SYS_OPENAT2 -> open(n);
                case Syscalls.SYS_FSTAT, Syscalls.SYS_NEWFSTATAT, Syscalls.SYS_STATX -> stat(n);
                case Syscalls.SYS_WRITE, Syscalls.SYS_WRITEV, Syscalls.SYS_PWRITE64 -> write(n);
                case Syscalls.SYS_READ, Syscalls.SYS_READV -> socketCalls.read(n);
                case Syscalls.SYS_IOCTL -> socketCalls.ioctl(n);
                case Syscalls.SYS_DUP, Syscalls.SYS_DUP2, Syscalls.SYS_DUP3, Syscalls.SYS_FCNTL -> socketCalls.duplicate(n);
                case Syscalls.SYS_RT_SIGRETURN -> signalReturn(n);
                case Syscalls.SYS_MMAP -> mmap(n);
                case Syscalls.SYS_LSEEK, Syscalls.SYS_PREAD64, Syscalls.SYS_PREADV, Syscalls.SYS_PWRITEV,
                        Syscalls.SYS_PREADV2, Syscalls.SYS_PWRITEV2, Syscalls.SYS_FTRUNCATE, Syscalls.SYS_FALLOCATE ->
                        positioned(n);
                case NetlinkCalls.SYS_SOCKET -> netlink.socket(n);
                default -> {
                    // an emulated netlink socket first: its calls then pay no second lookup
                    if (!netlink.serve(n)) {
                        if (socketFile(n.tid(), n.args()[0]) != null) {
                            fail(n, ENOTSOCK); // a device file is no socket, whatever carries it
                        } else {
                            proceed(n); // a socket call on a descriptor that is no emulated socket
                        }
                    }
                }
            }
        } catch (Throwable t) {
            if (!Fatal.check(t, "supervised syscall " + n.nr())) {
                LOG.log(System.Logger.Level.ERROR, "supervised syscall " + n.nr() + " of tid " + n.tid() + " failed", t);
            }
            fail(n, Errno.EIO);
        }
    }

    /** open/openat/openat2 of a supervised node: the device opens, the file lands in the reserved range. */
    private void open(Notification n) throws Errno {
        long[] a = n.args();
        long pathAddress = n.nr() == Syscalls.SYS_OPEN ? a[0] : a[1];
        long flags;
        if (n.nr() == Syscalls.SYS_OPENAT2) {
            if (a[3] < 8) {
                proceed(n);
                return;
            }
            flags = readLong(n.tid(), a[2]); // struct open_how starts with u64 flags
        } else {
            flags = n.nr() == Syscalls.SYS_OPEN ? a[1] : a[2];
        }
        String path = flags == Long.MIN_VALUE ? null : readPath(n.tid(), pathAddress, supervisor.devices().longestNodePath());
        DeviceNode node = path == null || (flags & Syscalls.O_PATH) != 0 ? null : supervisor.devices().node(path);
        if (node == null) {
            proceed(n);
            return;
        }
        if (!valid(n.id())) {
            return; // what was read may be stale; the kernel dropped the call
        }
        int openFlags = (int) flags;
        if (!permitted(node, credentials(n.tid()), openFlags)) {
            fail(n, Errno.EACCES);
        } else if ((openFlags & (Syscalls.O_CREAT | Syscalls.O_EXCL)) == (Syscalls.O_CREAT | Syscalls.O_EXCL)) {
            fail(n, Errno.EEXIST);
        } else {
            openNode(n, node, openFlags);
        }
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
            DeviceFile file = node.device().open(new SupervisedCaller(this, n.id(), n.tid()), openFlags);
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
            fail(n, e.code());
            return;
        }
        try {
            if (!node.supervisedIo() && !carried) {
                // get_unused_fd_flags: the lowest free number; the FUSE file serves all that follows
                addFd(n.id(), local, 0, Syscalls.ADDFD_SEND, openFlags & Syscalls.O_CLOEXEC);
                return;
            }
            int target = lowestFree(n.tid());
            if (target < 0) {
                fail(n, Errno.EMFILE);
                return;
            }
            addFd(n.id(), local, target, Syscalls.ADDFD_SETFD | Syscalls.ADDFD_SEND, openFlags & Syscalls.O_CLOEXEC);
        } catch (Errno e) {
            fail(n, e.code()); // SEND failed: the call is still waiting for an answer
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

    /** The device file behind a range descriptor of {@code tid} (a {@link NodeFile}, a {@link SocketFile}), or null. */
    Object rangeFile(int tid, long fdArgument) {
        if (fdArgument < base || fdArgument >= base + count) {
            return null;
        }
        return supervisor.rangeFile(tid, (int) fdArgument, scratch() + AT_PROC_PATH, scratch() + AT_STAT);
    }

    /** The socket-carried file behind a range descriptor of {@code tid}, or null. */
    SocketFile socketFile(int tid, long fdArgument) {
        return rangeFile(tid, fdArgument) instanceof SocketFile s ? s : null;
    }

    /** The node a range descriptor of {@code tid} is an open of, through FUSE or a socket pair; else null. */
    private DeviceNode nodeOf(int tid, long fdArgument) {
        Object file = rangeFile(tid, fdArgument);
        return file instanceof NodeFile f ? f.node : file instanceof SocketFile s ? s.node : null;
    }

    /** A memfd-carried node file behind range descriptor {@code fd} of {@code tid}, or null. */
    NodeFile mappedFile(int tid, long fd) {
        return rangeFile(tid, fd) instanceof NodeFile f && f.mapped ? f : null;
    }

    /**
     * mmap of a range descriptor: a memfd-carried file's device checks offset and size as its
     * driver's mmap would (after the generic checks of do_mmap that come first), then the kernel
     * maps the memfd's pages; any other file's mmap is its own.
     */
    private void mmap(Notification n) throws Errno {
        long[] a = n.args();
        NodeFile f = mappedFile(n.tid(), a[4]);
        if (f == null || !(f.file instanceof MappableFile m)) {
            proceed(n);
            return;
        }
        long length = a[1];
        long prot = a[2];
        long flags = a[3];
        long offset = a[5];
        boolean shared = (flags & MAP_TYPE) == MAP_SHARED || (flags & MAP_TYPE) == MAP_SHARED_VALIDATE;
        if (length == 0 || (offset & (PAGE_SIZE - 1)) != 0) {
            fail(n, Errno.EINVAL);
        } else if ((f.flags & Syscalls.O_ACCMODE) == Syscalls.O_WRONLY
                || shared && (prot & PROT_WRITE) != 0 && (f.flags & Syscalls.O_ACCMODE) != Syscalls.O_RDWR) {
            fail(n, Errno.EACCES);
        } else {
            try {
                m.mmap(offset, length, (int) prot, (int) flags);
                proceed(n);
            } catch (Errno e) {
                fail(n, e.code());
            }
        }
    }

    /**
     * lseek, positioned reads and writes, ftruncate, fallocate of a memfd-carried file: what the
     * kernel answers for a nonseekable char device (no_llseek, no FMODE_PREAD/PWRITE: ESPIPE;
     * do_sys_ftruncate of a non-regular file: EINVAL; vfs_fallocate: ENODEV), not the memfd's.
     */
    private void positioned(Notification n) {
        if (mappedFile(n.tid(), n.args()[0]) == null) {
            proceed(n);
            return;
        }
        fail(n, switch (n.nr()) {
            case Syscalls.SYS_FTRUNCATE -> Errno.EINVAL;
            case Syscalls.SYS_FALLOCATE -> Errno.ENODEV;
            default -> Errno.ESPIPE;
        });
    }

    /** fstat/newfstatat/statx(AT_EMPTY_PATH) of a range fd: the node's own stat. */
    private void stat(Notification n) throws Errno {
        long[] a = n.args();
        if (n.nr() != Syscalls.SYS_FSTAT && a[1] != 0 && readByte(n.tid(), a[1]) != 0) {
            proceed(n); // a path relative to the fd: not an fstat
            return;
        }
        DeviceNode node = nodeOf(n.tid(), a[0]);
        if (node == null) {
            proceed(n);
            return;
        }
        if (!valid(n.id())) {
            return;
        }
        long buf = scratch() + AT_STAT;
        String nodePath = supervisor.devices().nodePath(node).toString();
        Syscalls.putString(scratch() + AT_NODE_PATH, nodePath);
        int size;
        long target;
        try {
            if (n.nr() == Syscalls.SYS_STATX) {
                Syscalls.syscall(Syscalls.SYS_STATX, Syscalls.AT_FDCWD, scratch() + AT_NODE_PATH,
                        a[2] & ~Syscalls.AT_EMPTY_PATH, a[3], buf);
                size = Syscalls.STATX_SIZE;
                target = a[4];
            } else {
                Syscalls.syscall(Syscalls.SYS_NEWFSTATAT, Syscalls.AT_FDCWD, scratch() + AT_NODE_PATH, buf, 0, 0);
                size = Syscalls.STAT_SIZE;
                target = n.nr() == Syscalls.SYS_FSTAT ? a[1] : a[2];
            }
        } catch (Errno e) {
            fail(n, e.code());
            return;
        }
        byte[] answer = new byte[size];
        MEMORY.getByteArray(buf, answer, 0, size);
        try {
            ProcessMemory.write(n.tid(), target, answer, 0, size);
        } catch (Errno e) {
            fail(n, Errno.EFAULT);
            return;
        }
        reply(n, 0);
    }

    /** write/writev on a range fd of a node: the device serves the whole buffer. */
    private void write(Notification n) throws Errno {
        long[] a = n.args();
        Object found = rangeFile(n.tid(), a[0]);
        NodeFile file = found instanceof NodeFile f ? f : null;
        SocketFile carried = found instanceof SocketFile s ? s : null;
        if (found == null) {
            writeSocket(n);
            return;
        }
        if (carried != null && !carried.writable()) {
            fail(n, Errno.EBADF);
            return;
        }
        if (n.nr() == Syscalls.SYS_PWRITE64) {
            fail(n, Errno.ESPIPE); // a stream device (stream_open) has no positioned writes
            return;
        }
        byte[] data;
        try {
            data = n.nr() == Syscalls.SYS_WRITE ? writeBuffer(n.tid(), a[1], a[2]) : gather(n.tid(), a[1], a[2]);
        } catch (Errno e) {
            fail(n, e.code());
            return;
        }
        if (!valid(n.id())) {
            return;
        }
        SupervisedCaller caller = new SupervisedCaller(this, n.id(), n.tid());
        try {
            reply(n, file != null ? file.file.write(caller, ByteBuffer.wrap(data), file.flags)
                    : carried.file.write(caller, ByteBuffer.wrap(data), carried.accessMode()));
        } catch (Errno e) {
            fail(n, e.code());
        }
    }

    /** write/writev on an emulated netlink socket is a send; anything else continues. */
    private void writeSocket(Notification n) throws Errno {
        if (n.nr() == Syscalls.SYS_PWRITE64 || supervisor.netlinkSockets().isEmpty()) {
            proceed(n);
            return;
        }
        long[] a = n.args();
        byte[] data;
        try {
            data = n.nr() == Syscalls.SYS_WRITE ? writeBuffer(n.tid(), a[1], a[2]) : gather(n.tid(), a[1], a[2]);
        } catch (Errno e) {
            proceed(n);
            return;
        }
        if (!netlink.write(n, data)) {
            proceed(n);
        }
    }

    private static byte[] writeBuffer(int tid, long address, long length) throws Errno {
        if (length < 0 || length > MAX_WRITE) {
            throw Errno.of(Errno.EINVAL);
        }
        try {
            return ProcessMemory.read(tid, address, (int) length);
        } catch (Errno e) {
            throw Errno.of(Errno.EFAULT);
        }
    }

    /** writev's iovecs joined into one buffer, as the kernel's write_iter sees them. */
    static byte[] gather(int tid, long iov, long iovCount) throws Errno {
        long[] segments = iovecs(tid, iov, iovCount);
        long total = 0;
        for (int i = 1; i < segments.length; i += 2) {
            total += segments[i];
        }
        if (total > MAX_WRITE) {
            throw Errno.of(Errno.EINVAL);
        }
        ByteBuffer joined = ByteBuffer.allocate((int) total);
        for (int i = 0; i < segments.length; i += 2) {
            joined.put(writeBuffer(tid, segments[i], segments[i + 1]));
        }
        return joined.array();
    }

    /**
     * The iovec array at {@code iov} as {base, length, base, length, ...}: EINVAL for a bad count or
     * a negative or overflowing length (import_iovec), EFAULT when the array is unreadable.
     */
    static long[] iovecs(int tid, long iov, long iovCount) throws Errno {
        if (iovCount < 0 || iovCount > IOV_MAX) {
            throw Errno.of(Errno.EINVAL);
        }
        ByteBuffer vectors = ByteBuffer.wrap(writeBuffer(tid, iov, iovCount * 16)).order(ByteOrder.LITTLE_ENDIAN);
        long[] segments = new long[(int) iovCount * 2];
        long total = 0;
        for (int i = 0; i < segments.length; i++) {
            segments[i] = vectors.getLong();
            if (i % 2 == 1) {
                total += segments[i];
                if (segments[i] < 0 || total < 0) {
                    throw Errno.of(Errno.EINVAL);
                }
            }
        }
        return segments;
    }

    /**
     * rt_sigreturn: a handler returns. If its signal ended one of the calls this filter notifies
     * before a thread here received it, the call never ran and its EINTR is not the kernel's:
     * the handler returns into the call again ({@link SignalFrame}).
     */
    private void signalReturn(Notification n) {
        SignalFrame frame = SignalFrame.of(n.tid(), scratch() + AT_NODE_PATH);
        int nr = frame == null ? -1 : frame.interruptedCall();
        if (nr >= 0 && restartable(n.tid(), nr, frame.arguments()) && valid(n.id())) {
            try {
                frame.restart(nr);
                supervisor.restarted();
            } catch (Errno e) {
                // the frame became unreadable: the handler returns the EINTR it has
            }
        }
        proceed(n);
    }

    /**
     * The filter notifies this call (the stub's program, mirrored) and the kernel itself would
     * not have ended it with EINTR: a device file's write or fstat, or an open that cannot sleep
     * interruptibly. A FIFO, a FUSE file (issm's blocking open among them) or a tty may: those keep
     * their EINTR, which may be the kernel's own.
     */
    private boolean restartable(int tid, int nr, long[] a) {
        return switch (nr) {
            case Syscalls.SYS_WRITE, Syscalls.SYS_WRITEV, Syscalls.SYS_PWRITE64 ->
                    deviceFile(tid, a[0]) || netlink.emulated(tid, a[0]);
            case Syscalls.SYS_FSTAT -> deviceFile(tid, a[0]);
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

    private boolean deviceFile(int tid, long fdArgument) {
        return nodeOf(tid, fdArgument) != null;
    }

    /**
     * An open of one of our nodes, of a regular file or directory outside FUSE, or of nothing
     * yet. Two syscalls (statx, statfs) and no mount-table walk: the storm of a handled signal
     * every few hundred µs must not end this rt_sigreturn's wait before it is answered.
     */
    private boolean opensAtOnce(int tid, int dirfd, long pathAddress) {
        String path = readPath(tid, pathAddress, PATH_MAX);
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

    /** {@link io.ibemu.devfs.Caller#installFile}: a new fd at the caller's lowest free number. */
    int install(long id, DeviceFile file, int openFlags) throws Errno {
        int local = supervisor.openFile(null, file, openFlags);
        try {
            return (int) addFd(id, local, 0, 0, openFlags & Syscalls.O_CLOEXEC);
        } finally {
            Syscalls.LIBC.close(local);
        }
    }

    // ---- the kernel side ----

    /** The first number of the reserved range. */
    int base() {
        return base;
    }

    /** The reserved range's size. */
    int count() {
        return count;
    }

    /** The supervisor is shutting down. */
    boolean closing() {
        return supervisor.closing();
    }

    /** SECCOMP_IOCTL_NOTIF_ID_VALID: the caller still waits in this call. */
    boolean valid(long id) {
        long scratch = scratch();
        MEMORY.putLong(scratch + AT_REPLY, id);
        return Syscalls.LIBC.ioctl(fd, Syscalls.NOTIF_ID_VALID, scratch + AT_REPLY) == 0;
    }

    long addFd(long id, int source, int target, int flags, int fdFlags) throws Errno {
        if ((flags & Syscalls.ADDFD_SETFD) != 0 && supervisor.socketFiles() != null) {
            supervisor.socketFiles().installed(target);
        }
        long scratch = scratch() + AT_REPLY;
        MEMORY.putLong(scratch, id);
        MEMORY.putInt(scratch + 8, flags);
        MEMORY.putInt(scratch + 12, source);
        MEMORY.putInt(scratch + 16, target);
        MEMORY.putInt(scratch + 20, fdFlags);
        return Syscalls.check(Syscalls.LIBC.ioctl(fd, Syscalls.NOTIF_ADDFD, scratch));
    }

    void proceed(Notification n) {
        send(n.id(), 0, 0, Syscalls.FLAG_CONTINUE);
    }

    void reply(Notification n, long value) {
        send(n.id(), value, 0, 0);
    }

    void fail(Notification n, int errno) {
        send(n.id(), 0, -errno, 0);
    }

    private void send(long id, long value, int error, int flags) {
        long scratch = scratch() + AT_REPLY;
        MEMORY.putLong(scratch, id);
        MEMORY.putLong(scratch + 8, value);
        MEMORY.putInt(scratch + 16, error);
        MEMORY.putInt(scratch + 20, flags);
        if (Syscalls.LIBC.ioctl(fd, Syscalls.NOTIF_SEND, scratch) != 0 && Syscalls.errno() != Errno.ENOENT) {
            LOG.log(System.Logger.Level.WARNING, "SECCOMP_IOCTL_NOTIF_SEND failed: errno {0}", Syscalls.errno());
        }
    }

    // ---- the caller ----

    /** The lowest number of the reserved range the caller's fd table leaves free, or -1. */
    int lowestFree(int tid) {
        return lowestFree(tid, base);
    }

    /** The lowest free number of the reserved range from {@code from} on, or -1. */
    int lowestFree(int tid, int from) {
        String[] names = new File("/proc/" + tid + "/fd").list();
        BitSet used = new BitSet(count);
        if (names != null) {
            for (String name : names) {
                int number = Integer.parseInt(name);
                if (number >= base && number < base + count) {
                    used.set(number - base);
                }
            }
        }
        int free = used.nextClearBit(Math.max(from - base, 0));
        return free < count ? base + free : -1;
    }

    /**
     * The NUL-terminated string at {@code address} if it has at most {@code longest} bytes, else
     * null (not a path of ours); read a page at a time so an unmapped next page is no fault.
     */
    private static String readPath(int tid, long address, int longest) {
        if (address == 0 || longest == 0) {
            return null;
        }
        byte[] bytes = new byte[longest + 1];
        int have = 0;
        while (have < bytes.length) {
            long at = address + have;
            int chunk = (int) Math.min(bytes.length - have, PAGE - (at & (PAGE - 1)));
            byte[] piece;
            try {
                piece = ProcessMemory.read(tid, at, chunk);
            } catch (Errno e) {
                return null;
            }
            for (int i = 0; i < chunk; i++) {
                if (piece[i] == 0) {
                    System.arraycopy(piece, 0, bytes, have, i);
                    return new String(bytes, 0, have + i, StandardCharsets.UTF_8);
                }
            }
            System.arraycopy(piece, 0, bytes, have, chunk);
            have += chunk;
        }
        return null;
    }

    private static long readLong(int tid, long address) {
        try {
            return ByteBuffer.wrap(ProcessMemory.read(tid, address, 8)).order(ByteOrder.LITTLE_ENDIAN).getLong();
        } catch (Errno e) {
            return Long.MIN_VALUE;
        }
    }

    private static int readByte(int tid, long address) {
        try {
            return ProcessMemory.read(tid, address, 1)[0];
        } catch (Errno e) {
            return -1; // let the kernel fault it
        }
    }

    /** fsuid, fsgid and groups from /proc/TID/status, as the kernel checks access. */
    static DeviceNode.Credentials credentials(int tid) {
        int fsuid = -1;
        int fsgid = -1;
        int[] groups = new int[0];
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc", Integer.toString(tid), "status"));
            for (String line : lines) {
                String[] f = line.split("\\s+");
                if (line.startsWith("Uid:")) {
                    fsuid = Integer.parseInt(f[4]);
                } else if (line.startsWith("Gid:")) {
                    fsgid = Integer.parseInt(f[4]);
                } else if (line.startsWith("Groups:")) {
                    groups = new int[f.length - 1];
                    for (int i = 1; i < f.length; i++) {
                        groups[i - 1] = Integer.parseInt(f[i]);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone or unreadable: no rights at all
        }
        return new DeviceNode.Credentials(fsuid, fsgid, groups);
    }

    static long scratch() {
        return SCRATCHES.get().address;
    }
}
