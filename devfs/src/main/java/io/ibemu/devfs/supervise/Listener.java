package io.ibemu.devfs.supervise;

import io.ibemu.devfs.device.DeviceFile;
import io.ibemu.devfs.device.DeviceNode;
import io.ibemu.kernel.Errno;
import io.ibemu.kernel.Fatal;

import java.io.File;
import java.nio.ByteBuffer;
import java.util.BitSet;
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
    private static final int ENOTSOCK = 88;

    // the per-thread scratch: struct seccomp_notif, a reply or addfd, a pollfd, a /proc path, a stat
    private static final int AT_NOTIF = 0;
    private static final int AT_REPLY = 128;
    private static final int AT_POLLFD = 256;
    private static final int AT_PROC_PATH = 512;
    static final int AT_STAT = 1024;
    static final int AT_NODE_PATH = 2048;
    private static final int SCRATCH = 8192;
    private static final ThreadLocal<Scratch> SCRATCHES = ThreadLocal.withInitial(Scratch::new);

    /** A thread's scratch memory, its address (a JNI call each time otherwise) and its kernel tid, asked once. */
    private static final class Scratch {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(SCRATCH);
        final long address = MEMORY.getDirectBufferAddress(buffer);
        final int tid = (int) Syscalls.LIBC.syscall(Syscalls.SYS_GETTID, 0, 0, 0, 0, 0, 0);
    }

    private final Supervisor supervisor;
    // one handler per kind of call the filter notifies: a new kind (mmap, ...) gets a class of its own
    private final NodeCalls nodeCalls;
    private final SocketFileCalls socketCalls;
    private final NetlinkCalls netlink;
    private final SignalCalls signalCalls;
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
        this.nodeCalls = new NodeCalls(this, supervisor, netlink);
        this.socketCalls = new SocketFileCalls(this, supervisor);
        this.signalCalls = new SignalCalls(this, supervisor, netlink);
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
                supervisor.callStarted();
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

    /** True when a call started at or after {@code tick} (System.nanoTime) or one is still being served. */
    boolean servedSince(long tick) {
        return lastServeStart - tick >= 0 || receivers.get() == 0 && threads.get() > 0;
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

    /** The dispatch: one line per kind of call the filter notifies, each to the class that serves that kind. */
    private void serve(Notification n) {
        try {
            switch (n.nr()) {
                case Syscalls.SYS_OPEN, Syscalls.SYS_OPENAT, Syscalls.SYS_OPENAT2 -> nodeCalls.open(n);
                case Syscalls.SYS_FSTAT, Syscalls.SYS_NEWFSTATAT, Syscalls.SYS_STATX -> nodeCalls.stat(n);
                case Syscalls.SYS_WRITE, Syscalls.SYS_WRITEV, Syscalls.SYS_PWRITE64 -> nodeCalls.write(n);
                case Syscalls.SYS_READ, Syscalls.SYS_READV -> socketCalls.read(n);
                case Syscalls.SYS_IOCTL -> socketCalls.ioctl(n);
                case Syscalls.SYS_DUP, Syscalls.SYS_DUP2, Syscalls.SYS_DUP3, Syscalls.SYS_FCNTL -> socketCalls.duplicate(n);
                case Syscalls.SYS_RT_SIGRETURN -> signalCalls.signalReturn(n);
                case Syscalls.SYS_MMAP -> nodeCalls.mmap(n);
                case Syscalls.SYS_LSEEK, Syscalls.SYS_PREAD64, Syscalls.SYS_PREADV, Syscalls.SYS_PWRITEV,
                        Syscalls.SYS_PREADV2, Syscalls.SYS_PWRITEV2, Syscalls.SYS_FTRUNCATE, Syscalls.SYS_FALLOCATE ->
                        nodeCalls.positioned(n);
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

    /** The device file behind a range descriptor of {@code tid} (a {@link NodeFile}, a {@link SocketFile}), or null. */
    Object rangeFile(int tid, long fdArgument) {
        if (fdArgument < base || fdArgument >= base + count) {
            return null;
        }
        return supervisor.rangeFile(tid, (int) fdArgument, scratch() + AT_PROC_PATH, scratch() + AT_STAT);
    }

    /** A memfd-carried node file behind range descriptor {@code fd} of {@code tid}, or null. */
    NodeFile mappedFile(int tid, long fd) {
        return rangeFile(tid, fd) instanceof NodeFile f && f.mapped ? f : null;
    }

    /** The socket-carried file behind a range descriptor of {@code tid}, or null. */
    SocketFile socketFile(int tid, long fdArgument) {
        return rangeFile(tid, fdArgument) instanceof SocketFile s ? s : null;
    }

    /** The node a range descriptor of {@code tid} is an open of, through FUSE or a socket pair; else null. */
    DeviceNode nodeOf(int tid, long fdArgument) {
        Object file = rangeFile(tid, fdArgument);
        return file instanceof NodeFile f ? f.node : file instanceof SocketFile s ? s.node : null;
    }

    /** {@link io.ibemu.devfs.device.Caller#installFile}: a new fd at the caller's lowest free number. */
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
        if ((flags & Syscalls.ADDFD_SETFD) != 0) {
            supervisor.installedAt(target);
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

    static long scratch() {
        return SCRATCHES.get().address;
    }
}
