package io.ibemu.devfs.supervise;

import io.ibemu.devfs.DeviceDirectory;
import io.ibemu.devfs.PrivateSocket;
import io.ibemu.devfs.device.DeviceFile;
import io.ibemu.devfs.device.DeviceNode;
import io.ibemu.devfs.device.MessageFile;
import io.ibemu.devfs.netlink.NetlinkFamily;
import io.ibemu.kernel.Errno;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongFunction;
import java.util.function.Predicate;

import static io.ibemu.devfs.supervise.Syscalls.MEMORY;

/**
 * The daemon's side of the launcher's supervisor: takes the seccomp notification listener of
 * every process tree started by the {@code ibemu-supervise} stub and makes the
 * {@link DeviceDirectory#addCharDevice char devices} of one {@link DeviceDirectory} behave in
 * those processes as kernel char devices: open of the node path, fstat/statx of the open file,
 * write commands served in one round trip, and new descriptors ({@code Caller.installFile}).
 *
 * <p>Hand-over protocol on the unix socket (mode 0600, root only): the stub sends one line
 * {@code "PID LISTENER_FD BASE COUNT\n"}; the supervisor takes the listener with
 * pidfd_open + pidfd_getfd and answers {@code "ok\n"} or {@code "error: ...\n"}.
 */
public final class Supervisor implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Supervisor.class.getName());
    /** The socket's name in the daemon's state directory. */
    public static final String SOCKET = "supervisor.sock";
    /**
     * System property: "fuse" carries the opens of {@link MessageFile} nodes (umad) as FUSE files
     * like the others; anything else (the default, "socket") in socket pairs ({@link SocketFile}).
     */
    public static final String MESSAGE_TRANSPORT = "ibemu.message.transport";
    /**
     * System property: the name of an environment variable that a supervised process sets to
     * "fuse" to have its own opens of message-file nodes carried as FUSE files, whatever
     * {@link #MESSAGE_TRANSPORT} says (read from /proc/PID/environ at each such open).
     */
    public static final String MESSAGE_TRANSPORT_VARIABLE = "ibemu.message.transport.variable";
    private static final int MAX_LINE = 128;
    private static final int MAX_RANGE = 1024;

    private final DeviceDirectory devices;
    private final NetlinkSockets netlink;
    private final ServerSocketChannel server;
    private final Path socket;
    private final long fuseDev;
    private final Map<Long, NodeFile> nodeFiles = new ConcurrentHashMap<>();
    /** What range descriptors were found to be: node files and socket files alike. */
    private final DescriptorCache<Object> descriptors;
    private final LongFunction<Object> fileOf = this::fileOf;
    private final Predicate<Object> remember;
    /** Opens of nodes whose files are {@link MessageFile}s, carried by socket pairs; null: those go over FUSE too. */
    private final SocketFiles sockets;
    /** Opens of nodes whose files map memory, carried by memfds; null: this kernel cannot. */
    private final MappedFiles mapped;
    private final Set<Listener> listeners = ConcurrentHashMap.newKeySet();
    private final ThreadPoolExecutor pool;
    private final Thread acceptor;
    private final Thread watchdog;
    private static final long SPARE_DELAY_MS = 5;
    private volatile boolean closing;
    /** The watchdog sleeps untimed until the next call: a tree that only polls its mapped rings costs nothing. */
    private volatile boolean watchdogParked;
    private final AtomicLong restartedCalls = new AtomicLong();

    private Supervisor(DeviceDirectory devices, ServerSocketChannel server, Path socket, long fuseDev,
            Map<Integer, NetlinkFamily> families, DescriptorCache<Object> descriptors, SocketFiles sockets,
            MappedFiles mapped) {
        this.devices = devices;
        this.descriptors = descriptors;
        // a memfd-carried file is remembered as a socket-carried one: until its release (the
        // close event) or an install at its number; a FUSE node file while its closes are seen
        this.remember = file -> file instanceof SocketFile || file instanceof NodeFile f && f.mapped || devices.closesSeen();
        this.sockets = sockets;
        this.mapped = mapped;
        this.netlink = new NetlinkSockets(families);
        this.server = server;
        this.socket = socket;
        this.fuseDev = fuseDev;
        AtomicInteger names = new AtomicInteger();
        this.pool = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
            Thread t = new Thread(r, "supervise-" + names.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.acceptor = new Thread(this::accept, "supervise-accept");
        this.acceptor.setDaemon(true);
        this.watchdog = new Thread(this::watch, "supervise-watchdog");
        this.watchdog.setDaemon(true);
    }

    /**
     * Starts a spare thread for a listener whose threads have all been serving for
     * {@link #SPARE_DELAY_MS}: a device call that blocks holds up no other call for longer.
     * Ticks only while some process tree is supervised and makes calls: after a tick in which no
     * call started or was in flight it parks until {@link #callStarted} (programs busy-polling
     * mapped queues make no call, and a 5 ms tick was all the daemon's CPU while they did).
     */
    private void watch() {
        try {
            while (!closing) {
                synchronized (listeners) {
                    while (listeners.isEmpty() && !closing) {
                        listeners.wait();
                    }
                }
                long tick = System.nanoTime();
                Thread.sleep(SPARE_DELAY_MS);
                for (Listener l : listeners) {
                    if (l.stuck(TimeUnit.MILLISECONDS.toNanos(SPARE_DELAY_MS))) {
                        l.startThread();
                    }
                }
                if (!callsSince(tick)) {
                    watchdogParked = true;
                    // a call that started before the flag was seen is seen here (both volatile)
                    if (!callsSince(tick) && !closing) {
                        LockSupport.park(this);
                    }
                    watchdogParked = false;
                }
            }
        } catch (InterruptedException e) {
            // closing
        }
    }

    private boolean callsSince(long tick) {
        for (Listener l : listeners) {
            if (l.servedSince(tick)) {
                return true;
            }
        }
        return false;
    }

    /** A listener took a call: the watchdog must watch it (one volatile read when it already does). */
    void callStarted() {
        if (watchdogParked) {
            watchdogParked = false;
            LockSupport.unpark(watchdog);
        }
    }

    /**
     * Binds {@code socket} (mode 0600; bound under a temporary name and renamed once its mode is
     * set) and starts taking listeners for the char devices of {@code devices}, which must be
     * mounted and presented.
     */
    public static Supervisor start(DeviceDirectory devices, Path socket) throws IOException {
        return start(devices, socket, Map.of());
    }

    /**
     * As {@link #start(DeviceDirectory, Path)}, and answers netlink sockets of the protocols in
     * {@code families} (by protocol number: the stub notifies socket() for NETLINK_RDMA) for the
     * supervised processes, as the kernel's side of them.
     */
    public static Supervisor start(DeviceDirectory devices, Path socket, Map<Integer, NetlinkFamily> families)
            throws IOException {
        Path mount = devices.nodeFiles();
        if (mount == null) {
            throw new IllegalStateException(devices + " is not mounted");
        }
        long dev = deviceOf(mount.toString());
        DescriptorCache<Object> descriptors = new DescriptorCache<>();
        SocketFiles sockets = null;
        if (!"fuse".equals(System.getProperty(MESSAGE_TRANSPORT))) {
            try {
                sockets = new SocketFiles(descriptors);
            } catch (Errno e) {
                throw new IOException("the socket carrier's epoll set: errno " + e.code());
            }
        }
        ServerSocketChannel server;
        try {
            server = PrivateSocket.bind(socket, "the supervisor socket");
        } catch (IOException e) {
            if (sockets != null) {
                sockets.close();
            }
            throw e;
        }
        Supervisor s = new Supervisor(devices, server, socket, dev, families, descriptors, sockets,
                MappedFiles.start(descriptors));
        s.acceptor.start();
        s.watchdog.start();
        return s;
    }

    public Path socket() {
        return socket;
    }

    /** The process trees supervised now. */
    public int supervisedTrees() {
        return listeners.size();
    }

    /** Calls a signal ended before they were received, restarted since start (Listener.signalReturn). */
    public long restartedCalls() {
        return restartedCalls.get();
    }

    void restarted() {
        restartedCalls.incrementAndGet();
    }

    /**
     * Stops taking listeners and ends every receive loop (a receiver blocked in RECV is
     * signalled out, see {@link ReceiverWake}); supervised processes still running then get
     * ENOSYS from the calls the filter would notify.
     */
    @Override
    public void close() {
        closing = true;
        watchdog.interrupt();
        for (Listener l : listeners) {
            l.wake();
        }
        try {
            server.close();
        } catch (IOException e) {
            // closing anyway
        }
        try {
            Files.deleteIfExists(socket);
        } catch (IOException e) {
            // the state directory goes away with the daemon
        }
        pool.shutdown();
        try {
            pool.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        netlink.closeAll();
        if (sockets != null) {
            sockets.close();
        }
        if (mapped != null) {
            mapped.close();
        }
    }

    // ---- for the listeners ----

    boolean closing() {
        return closing;
    }

    DeviceDirectory devices() {
        return devices;
    }

    NetlinkSockets netlinkSockets() {
        return netlink;
    }

    /**
     * A descriptor was installed at {@code fd} in some caller: an earlier answer for that number
     * may name a file closed there unseen (socket- and memfd-carried files' closes are not seen
     * one by one).
     */
    void installedAt(int fd) {
        descriptors.forgetNumber(fd);
    }

    /**
     * Whether supervised programs can map device files here (memfd and inotify in this kernel):
     * a device that maps memory must otherwise present what needs no mapping.
     */
    public static boolean canMapFiles() {
        return MappedFiles.available();
    }

    /** The memfd-carried files, or null when this kernel has no memfd or inotify. */
    MappedFiles mappedFiles() {
        return mapped;
    }

    /** The socket-carried files, or null when message files go over FUSE. */
    SocketFiles socketFiles() {
        return sockets;
    }

    /** Whether {@code tid}'s process asks for FUSE files of message-file nodes in its environment. */
    static boolean wantsFuseFiles(int tid) {
        String name = System.getProperty(MESSAGE_TRANSPORT_VARIABLE);
        if (name == null) {
            return false;
        }
        byte[] environ;
        try {
            environ = Files.readAllBytes(Path.of("/proc", Integer.toString(tid), "environ"));
        } catch (IOException e) {
            return false;
        }
        String wanted = name + "=fuse";
        int start = 0;
        for (int i = 0; i <= environ.length; i++) {
            if (i == environ.length || environ[i] == 0) {
                if (new String(environ, start, i - start, StandardCharsets.UTF_8).equals(wanted)) {
                    return true;
                }
                start = i + 1;
            }
        }
        return false;
    }

    void execute(Runnable task) {
        pool.execute(task);
    }

    void ended(Listener listener) {
        listeners.remove(listener);
    }

    /**
     * A daemon descriptor of a new FUSE open file serving {@code file}; an open of {@code node}
     * (when not null) is registered by inode until its release, for fstat and write lookups.
     */
    int openFile(DeviceNode node, DeviceFile file, int openFlags) throws Errno {
        if (node == null) {
            return devices.openFile(file, openFlags);
        }
        NodeFile nodeFile = new NodeFile(node, file, openFlags, nodeFiles, descriptors);
        int fd;
        try {
            fd = devices.openFile(node, nodeFile, openFlags);
        } catch (Errno e) {
            file.release();
            throw e;
        }
        long scratch = MEMORY.allocateMemory(Syscalls.STATX_SIZE + 1, true);
        try {
            Syscalls.syscall(Syscalls.SYS_STATX, fd, scratch + Syscalls.STATX_SIZE, Syscalls.AT_EMPTY_PATH
                    | Syscalls.AT_STATX_DONT_SYNC, Syscalls.STATX_INO, scratch);
            nodeFile.register(MEMORY.getLong(scratch + Syscalls.STATX_INO_OFFSET));
        } catch (Errno e) {
            Syscalls.LIBC.close(fd);
            throw e;
        } finally {
            MEMORY.freeMemory(scratch);
        }
        return fd;
    }

    /**
     * The device file behind descriptor {@code fd} of thread {@code tid}: a {@link NodeFile}, a
     * {@link SocketFile}, or null. One statx of its /proc link that asks FUSE nothing
     * (AT_STATX_DONT_SYNC) tells the two apart by device, then the inode names the file; node
     * files are remembered only while every close of theirs is seen (FUSE FLUSH).
     */
    Object rangeFile(int tid, int fd, long pathScratch, long statScratch) {
        if (nodeFiles.isEmpty() && (sockets == null || sockets.isEmpty()) && (mapped == null || mapped.isEmpty())) {
            return null;
        }
        return descriptors.lookup(tid, fd, pathScratch, statScratch, Syscalls.AT_STATX_DONT_SYNC, remember, fileOf);
    }

    private Object fileOf(long stat) {
        long inode = MEMORY.getLong(stat + Syscalls.STATX_INO_OFFSET);
        if (dev(stat) == fuseDev) {
            return nodeFiles.get(inode);
        }
        if (mapped != null && dev(stat) == mapped.dev()) {
            return mapped.byInode(inode);
        }
        return sockets == null ? null : sockets.byInode(inode);
    }

    /** "/proc/TID/fd/FD" NUL-terminated at {@code address}, written digit by digit: no String per write. */
    static void procFdPath(long address, int tid, int fd) {
        long at = putAscii(address, "/proc/");
        at = putDecimal(at, tid);
        at = putAscii(at, "/fd/");
        at = putDecimal(at, fd);
        MEMORY.putByte(at, (byte) 0);
    }

    private static long putAscii(long at, String s) {
        for (int i = 0; i < s.length(); i++) {
            MEMORY.putByte(at + i, (byte) s.charAt(i));
        }
        return at + s.length();
    }

    private static long putDecimal(long at, int value) {
        long v = value & 0xffffffffL;
        int digits = 1;
        for (long p = 10; p <= v; p *= 10) {
            digits++;
        }
        for (int i = digits - 1; i >= 0; i--) {
            MEMORY.putByte(at + i, (byte) ('0' + v % 10));
            v /= 10;
        }
        return at + digits;
    }

    private static long dev(long statx) {
        return ((long) MEMORY.getInt(statx + Syscalls.STATX_DEV_MAJOR) << 32)
                | (MEMORY.getInt(statx + Syscalls.STATX_DEV_MINOR) & 0xffffffffL);
    }

    /** The device of descriptor {@code fd}'s inode, as {@link #dev} gives it. */
    static long deviceOfDescriptor(int fd) throws Errno {
        long scratch = MEMORY.allocateMemory(Syscalls.STATX_SIZE + 1, true);
        try {
            Syscalls.syscall(Syscalls.SYS_STATX, fd, scratch + Syscalls.STATX_SIZE, Syscalls.AT_EMPTY_PATH,
                    Syscalls.STATX_INO, scratch);
            return dev(scratch);
        } finally {
            MEMORY.freeMemory(scratch);
        }
    }

    private static long deviceOf(String path) throws IOException {
        long scratch = MEMORY.allocateMemory(Syscalls.STATX_SIZE + 4096, true);
        try {
            Syscalls.putString(scratch + Syscalls.STATX_SIZE, path);
            Syscalls.syscall(Syscalls.SYS_STATX, Syscalls.AT_FDCWD, scratch + Syscalls.STATX_SIZE,
                    Syscalls.AT_STATX_DONT_SYNC, Syscalls.STATX_INO, scratch);
            return dev(scratch);
        } catch (Errno e) {
            throw new IOException("statx " + path + ": errno " + e.code());
        } finally {
            MEMORY.freeMemory(scratch);
        }
    }

    // ---- the hand-over ----

    private void accept() {
        while (!closing) {
            try (SocketChannel c = server.accept()) {
                String answer;
                try {
                    answer = take(readLine(c));
                } catch (IOException e) {
                    answer = "error: " + e.getMessage() + "\n";
                }
                c.write(ByteBuffer.wrap(answer.getBytes(StandardCharsets.US_ASCII)));
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (!closing) {
                    LOG.log(System.Logger.Level.WARNING, "supervisor socket: {0}", e.getMessage());
                }
            }
        }
    }

    /** "PID LISTENER_FD BASE COUNT": takes the listener and starts serving it. */
    private String take(String line) {
        String[] f = line.trim().split(" ");
        int pid;
        int remoteFd;
        int base;
        int count;
        try {
            if (f.length != 4) {
                throw new NumberFormatException();
            }
            pid = Integer.parseInt(f[0]);
            remoteFd = Integer.parseInt(f[1]);
            base = Integer.parseInt(f[2]);
            count = Integer.parseInt(f[3]);
        } catch (NumberFormatException e) {
            return "error: expected \"PID LISTENER_FD BASE COUNT\"\n";
        }
        if (pid <= 0 || remoteFd < 0 || base < 3 || count < 1 || count > MAX_RANGE) {
            return "error: bad pid, descriptor or range\n";
        }
        int listener;
        try {
            listener = Syscalls.callerDescriptor(pid, remoteFd);
        } catch (Errno e) {
            return "error: cannot take descriptor " + remoteFd + " of pid " + pid + " (errno " + e.code() + ")\n";
        }
        Listener l = new Listener(this, listener, base, count);
        synchronized (listeners) {
            listeners.add(l);
            listeners.notifyAll();
        }
        l.start();
        return "ok\n";
    }

    private static String readLine(SocketChannel c) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(MAX_LINE);
        while (buf.hasRemaining()) {
            if (c.read(buf) < 0) {
                break;
            }
            for (int i = 0; i < buf.position(); i++) {
                if (buf.get(i) == '\n') {
                    return new String(buf.array(), 0, i, StandardCharsets.US_ASCII);
                }
            }
        }
        throw new IOException("no request line");
    }
}
