package io.ibemu.devfs;

import io.ibemu.devfs.device.Caller;
import io.ibemu.devfs.device.CharDevice;
import io.ibemu.devfs.device.DeviceFile;
import io.ibemu.devfs.device.DeviceNode;
import io.ibemu.devfs.ns.MountNamespace;
import io.ibemu.kernel.Errno;
import io.ibemu.kernel.Fatal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * A flat directory of character-device-like files served over FUSE (the kernel protocol on
 * /dev/fuse, read and written by {@link DirectFileSystem}): each file is a regular file of size 0 whose open/read/write/ioctl/poll/release reach a
 * {@link CharDevice} and the {@link DeviceFile}s it opens.
 *
 * <p>Every request runs on one of the worker threads of a FUSE session, which grow in number
 * while requests block; a device call may block there as long as it ends once {@link Caller#interrupted()}.
 * {@link #close()} makes every caller look interrupted, waits for the callbacks to return,
 * aborts the FUSE connection (the kernel then fails whatever is left with ENOTCONN) and
 * unmounts.
 */
public final class DeviceDirectory implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(DeviceDirectory.class.getName());
    private static final Pattern FS_NAME = Pattern.compile("[A-Za-z0-9._:+-]+");
    private static final long FUSE_SUPER_MAGIC = 0x65735546L;
    private static final long MOUNT_TIMEOUT_MS = 10_000;
    private static final long CLOSE_TIMEOUT_MS = 5_000;

    /** A device file's directory entry. */
    record Entry(CharDevice device, int mode, int uid, int gid) {
        Entry(CharDevice device, int mode) {
            this(device, mode, 0, 0);
        }
    }


    private static final int O_ACCMODE = 3;
    private static final int O_NONBLOCK = 04000;
    private static final int O_CLOEXEC = 02000000;

    /** How the char devices reach programs. */
    public enum Backend {
        /** Nodes on a nodev tmpfs, opened through the supervisor, served as FUSE files. */
        FUSE,
        /** Real character devices through CUSE ({@link CuseDevice}): the kernel's own nodes in devtmpfs. */
        CUSE;

        /** "fuse" or "cuse". */
        public static Backend of(String name) {
            return switch (name) {
                case "fuse" -> FUSE;
                case "cuse" -> CUSE;
                default -> throw new IllegalArgumentException("unknown devfs backend: " + name);
            };
        }
    }

    /** The backend of directories made without one: the system property ibemu.devfs.backend, else fuse. */
    public static Backend defaultBackend() {
        return Backend.of(System.getProperty("ibemu.devfs.backend", "fuse"));
    }

    private final String fsName;
    private final Backend backend = defaultBackend();
    /** With {@link Backend#CUSE}: the device of each char device shown, by name. */
    private final Map<String, CuseDevice> cuse = new ConcurrentHashMap<>();
    /** With {@link Backend#CUSE}: where one-shot nodes are made for opens on a caller's behalf. */
    private volatile Path oneShotNodes;
    private final DirectFileSystem fileSystem;
    private final Map<String, Entry> entries = new ConcurrentHashMap<>();
    /** One-shot entries behind the files {@link #openFile} opens: never listed, used by one open. */
    private final Map<String, Entry> hidden = new ConcurrentHashMap<>();
    private final Map<String, DeviceNode> nodes = new ConcurrentHashMap<>();
    private final AtomicLong hiddenNames = new AtomicLong();
    private volatile Path presentedAt;
    private Path mountPoint; // guarded by this
    private Thread loop; // guarded by this
    private Thread shutdownHook; // guarded by this
    private boolean used; // guarded by this: a directory mounts once
    private volatile int loopResult = Integer.MIN_VALUE;

    public DeviceDirectory(String fsName) {
        if (!FS_NAME.matcher(fsName).matches()) {
            throw new IllegalArgumentException("fsname must match " + FS_NAME + ": " + fsName);
        }
        this.fsName = fsName;
        this.fileSystem = new DirectFileSystem(fsName, entries, hidden);
    }

    public Backend backend() {
        return backend;
    }

    /** Adds (or replaces) the file {@code name} with permission bits {@code mode} (e.g. 0666). */
    public void add(String name, CharDevice device, int mode) {
        checkName(name);
        entries.put(name, new Entry(Objects.requireNonNull(device), mode & 07777));
    }

    /**
     * Sets a FUSE file's permission bits and owner (what udev's MODE/OWNER/GROUP do to a node;
     * the mount's default_permissions then decides opens). The kernel may show the old
     * attributes for up to the entry timeout (1 s).
     */
    public void permissions(String name, int mode, int uid, int gid) {
        entries.computeIfPresent(name, (n, e) -> new Entry(e.device(), mode & 07777, uid, gid));
    }

    /** A FUSE file's mode, uid and gid, or null when there is no such file. */
    public int[] permissions(String name) {
        Entry e = entries.get(name);
        return e == null ? null : new int[] {e.mode(), e.uid(), e.gid()};
    }

    /** Removes the file; files already open stay open. */
    public void remove(String name) {
        entries.remove(name);
    }

    /**
     * Adds a character device shown by {@link #present} as a real node {@code name} with
     * {@code major:minor} and permission bits {@code mode}, owned by root. It is not a FUSE file:
     * only programs under the launcher's supervisor ({@code io.ibemu.devfs.supervise}) open it.
     */
    public void addCharDevice(String name, int major, int minor, int mode, CharDevice device) {
        addCharDevice(name, major, minor, mode, device, true);
    }

    /**
     * As {@link #addCharDevice(String, int, int, int, CharDevice)}; {@code supervisedIo} false
     * supervises only the open: the caller's descriptor is a plain FUSE file (read, write, ioctl
     * and poll reach the device through FUSE, fstat shows that file).
     */
    public void addCharDevice(String name, int major, int minor, int mode, CharDevice device, boolean supervisedIo) {
        checkName(name);
        nodes.put(name, new DeviceNode(name, major, minor, mode & 07777, Objects.requireNonNull(device), supervisedIo));
    }

    /**
     * Shows this directory at {@code where} in the private mount namespace: a new tmpfs mounted
     * nodev (so a direct open of a node never reaches a kernel driver) holding each FUSE file
     * bind-mounted and each {@link #addCharDevice char device} as a real node. Call once, after
     * mounting and adding the devices.
     */
    public void present(Path where) throws IOException {
        Path source = mountPoint();
        if (source == null) {
            throw new IllegalStateException(fsName + " is not mounted");
        }
        Path target = where.toAbsolutePath().normalize();
        if (backend == Backend.CUSE) {
            presentCuse(source, target);
            return;
        }
        MountNamespace.nodeDirectory(target);
        for (String name : entries.keySet()) {
            MountNamespace.graft(source.resolve(name), target.resolve(name));
        }
        for (DeviceNode node : nodes.values()) {
            MountNamespace.charNode(target.resolve(node.name()), node.major(), node.minor(), node.mode());
        }
        presentedAt = target;
    }

    /**
     * CUSE: the kernel makes each char device's node in devtmpfs under {@code target} (which must
     * be below /dev) and the namespace sees it there; plain FUSE files cannot be shown that way.
     */
    private void presentCuse(Path source, Path target) throws IOException {
        if (!target.startsWith("/dev/") || target.getNameCount() < 2) {
            throw new IOException("CUSE nodes live in /dev: cannot present at " + target);
        }
        if (!entries.isEmpty()) {
            throw new IOException("the CUSE backend shows only char devices; FUSE files: " + entries.keySet());
        }
        // mknod'd here (the daemon's work tmpfs, not nodev): one inode per open made for a caller
        Path oneShot = source.resolveSibling(source.getFileName() + ".open");
        Files.createDirectories(oneShot);
        oneShotNodes = oneShot;
        presentedAt = target;
        for (DeviceNode node : nodes.values()) {
            startCuse(node);
        }
    }

    private void startCuse(DeviceNode node) throws IOException {
        String devName = Path.of("/dev").relativize(presentedAt.resolve(node.name())).toString();
        CuseDevice device = new CuseDevice(devName, node.major(), node.minor(), node.device());
        device.start(node.mode());
        CuseDevice old = cuse.put(node.name(), device);
        if (old != null) {
            old.close();
        }
    }

    /**
     * After {@link #present}: shows a file or char device added since, as present() shows them
     * (a device appearing while the directory is in use, as on hotplug).
     */
    public void show(String name) throws IOException {
        Path at = presentedAt;
        Path source = mountPoint();
        if (at == null || source == null) {
            throw new IllegalStateException(fsName + " is not presented yet");
        }
        DeviceNode node = nodes.get(name);
        if (node != null && backend == Backend.CUSE) {
            startCuse(node);
        } else if (node != null) {
            MountNamespace.charNode(at.resolve(name), node.major(), node.minor(), node.mode());
        } else if (entries.containsKey(name)) {
            MountNamespace.graft(source.resolve(name), at.resolve(name));
        } else {
            throw new IllegalArgumentException("no device " + name);
        }
    }

    /**
     * Takes a file or char device away (as device_del removes its node): it is no longer listed or
     * opened; files already open stay open and reach their device, which decides what they do.
     */
    public void withdraw(String name) throws IOException {
        Path at = presentedAt;
        DeviceNode node = nodes.remove(name);
        Entry entry = entries.remove(name);
        CuseDevice device = cuse.remove(name);
        if (device != null) {
            device.close(); // the kernel removes the node; files open stay open
        }
        if (at == null) {
            return;
        }
        if (node != null && backend == Backend.CUSE) {
            return;
        } else if (node != null) {
            MountNamespace.unlink(at.resolve(name));
        } else if (entry != null) {
            MountNamespace.ungraft(at.resolve(name));
        }
    }

    /**
     * The char device whose node {@link #present} made at {@code absolutePath}, or null. Under CUSE
     * only those with {@link DeviceNode#supervisedIo}: the kernel opens the others itself.
     */
    public DeviceNode node(String absolutePath) {
        DeviceNode node = namedNode(absolutePath);
        return node == null || backend == Backend.FUSE || node.supervisedIo() ? node : null;
    }

    private DeviceNode namedNode(String absolutePath) {
        Path at = presentedAt;
        if (at == null || !absolutePath.startsWith(at.toString()) || absolutePath.length() <= at.toString().length() + 1
                || absolutePath.charAt(at.toString().length()) != '/') {
            return null;
        }
        return nodes.get(absolutePath.substring(at.toString().length() + 1));
    }

    /** Where {@code node} is shown; null before {@link #present}. */
    public Path nodePath(DeviceNode node) {
        Path at = presentedAt;
        return at == null ? null : at.resolve(node.name());
    }

    /** The longest path of a node, for callers that read paths of unknown length. */
    public int longestNodePath() {
        Path at = presentedAt;
        int longest = 0;
        for (String name : nodes.keySet()) {
            longest = Math.max(longest, name.length());
        }
        return at == null ? 0 : at.toString().length() + 1 + longest;
    }

    /**
     * Opens {@code file} as a new FUSE file of this directory (through a one-shot entry that is
     * never listed) and returns this process's descriptor of it (close-on-exec), for the
     * supervisor to install in a caller. Its access mode and O_NONBLOCK come from
     * {@code openFlags}. The file's release comes with the last close of that open file.
     */
    /** The FUSE node ids the file system holds. */
    int nodeCount() {
        return fileSystem.nodeCount();
    }

    public int openFile(DeviceFile file, int openFlags) throws Errno {
        return openFile(null, file, openFlags);
    }

    /**
     * As {@link #openFile(DeviceFile, int)}; for {@code node} (not null) under CUSE the file is a
     * real open of the CUSE device through a one-shot node of its number (an inode of its own,
     * like the one-shot FUSE entries), whose OPEN request takes {@code file}.
     */
    public int openFile(DeviceNode node, DeviceFile file, int openFlags) throws Errno {
        CuseDevice device = node == null ? null : cuse.get(node.name());
        if (device != null) {
            return openCuse(device, file, openFlags);
        }
        Path at = mountPoint();
        if (at == null) {
            throw Errno.of(Errno.ENODEV);
        }
        String name = ".open-" + hiddenNames.incrementAndGet();
        AtomicBoolean taken = new AtomicBoolean();
        hidden.put(name, new Entry((caller, flags) -> {
            if (taken.getAndSet(true)) {
                throw Errno.of(Errno.ENOENT);
            }
            return file;
        }, 0600));
        try {
            int fd = Libc.CALLS.open(at.resolve(name).toString(), (openFlags & (O_ACCMODE | O_NONBLOCK)) | O_CLOEXEC);
            if (fd < 0) {
                throw Errno.of(Libc.errno());
            }
            return fd;
        } finally {
            hidden.remove(name);
            fileSystem.removed(name); // else its node would stay until the kernel's dcache is pruned
        }
    }

    private int openCuse(CuseDevice device, DeviceFile file, int openFlags) throws Errno {
        Path node = oneShotNodes.resolve(".open-" + hiddenNames.incrementAndGet());
        if (Libc.CALLS.mknod(node.toString(), 0020000 | 0600, DeviceNode.rdev(device.major(), device.minor())) != 0) {
            throw Errno.of(Libc.errno());
        }
        device.handOff(file);
        try {
            int fd = Libc.CALLS.open(node.toString(), (openFlags & (O_ACCMODE | O_NONBLOCK)) | O_CLOEXEC);
            if (fd < 0) {
                throw Errno.of(Libc.errno());
            }
            return fd;
        } finally {
            device.withdraw();
            Libc.CALLS.unlink(node.toString());
        }
    }

    /**
     * The directory whose files carry the supervised opens of nodes ({@link #openFile(DeviceNode,
     * DeviceFile, int)}): the FUSE mount, or under CUSE the directory of one-shot nodes.
     */
    public Path nodeFiles() {
        Path oneShot = oneShotNodes;
        return oneShot != null ? oneShot : mountPoint();
    }

    /**
     * Whether every close of a node file reaches its device (FUSE FLUSH): CUSE sends none
     * (cuse_frontend_fops has no flush), so a descriptor cannot be known to stay the same file.
     */
    public boolean closesSeen() {
        return backend == Backend.FUSE;
    }

    /**
     * Mounts the directory at {@code mountPoint} (an existing directory) and returns once it
     * answers. A directory mounts once; after {@link #close()} make a new one.
     */
    public synchronized void mount(Path mountPoint) throws IOException {
        if (used) {
            throw new IllegalStateException(fsName + " was already mounted");
        }
        Path target = mountPoint.toAbsolutePath().normalize();
        if (!Files.isDirectory(target)) {
            throw new IOException("mount point is not a directory: " + target);
        }
        fileSystem.mount(target);
        Runnable serve = () -> {
            loopResult = fileSystem.serve();
            loopEnded();
        };
        Thread thread = new Thread(serve, "devfs-" + fsName);
        thread.setDaemon(true);
        thread.start();
        used = true;
        this.mountPoint = target;
        this.loop = thread;
        try {
            awaitMounted(thread, target);
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
        this.shutdownHook = new Thread(this::close, "devfs-unmount-" + fsName);
        java.lang.Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * The loop returned: fine during {@link #close()}; otherwise the mount is gone (unmounted
     * from outside, /dev/fuse failed) and nothing serves these files any more.
     */
    private void loopEnded() {
        boolean unexpected;
        synchronized (this) {
            unexpected = loop == Thread.currentThread() && initialized().getCount() == 0;
        }
        if (unexpected) {
            Fatal.raise("the FUSE loop of " + fsName + " ended (status " + loopResult + ")");
        }
    }

    private void awaitMounted(Thread thread, Path target) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(MOUNT_TIMEOUT_MS);
        try {
            while (!initialized().await(10, TimeUnit.MILLISECONDS)) {
                if (!thread.isAlive()) {
                    throw new IOException("cannot mount " + fsName + " at " + target + ": the FUSE session ended ("
                            + loopResult + ")");
                }
                if (System.nanoTime() > deadline) {
                    throw new IOException("mount of " + fsName + " at " + target + " did not answer");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while mounting " + target, e);
        }
        if (filesystemType(target) != FUSE_SUPER_MAGIC) {
            throw new IOException(target + " is not a FUSE mount after mounting " + fsName);
        }
    }

    private java.util.concurrent.CountDownLatch initialized() {
        return fileSystem.initialized;
    }

    private static long filesystemType(Path path) {
        return Libc.statfs(path);
    }

    /** Where the directory is mounted, or null. */
    public synchronized Path mountPoint() {
        return mountPoint;
    }

    /**
     * Unmounts. Blocked device calls see their callers interrupted and must return; every
     * request still pending in the kernel is then failed by aborting the connection. Files still
     * open are released.
     */
    @Override
    public void close() {
        Thread thread;
        Path target;
        synchronized (this) {
            thread = loop;
            target = mountPoint;
            if (thread == null) {
                return;
            }
            loop = null;
            mountPoint = null;
            if (shutdownHook != null && Thread.currentThread() != shutdownHook) {
                try {
                    java.lang.Runtime.getRuntime().removeShutdownHook(shutdownHook);
                } catch (IllegalStateException shuttingDown) {
                    // the hook is running or about to: harmless
                }
            }
            shutdownHook = null;
        }
        fileSystem.startClosing();
        if (!fileSystem.stop(thread, target, CLOSE_TIMEOUT_MS)) {
            LOG.log(System.Logger.Level.ERROR, "{0}: a device call ignores interruption; detaching {1}",
                    fsName, target);
        }
        DirectFileSystem.detach(target);
        for (CuseDevice device : cuse.values()) {
            device.close();
        }
        cuse.clear();
        HandleTable handles = fileSystem.handles();
        for (OpenFile file : handles.removeAll()) {
            try {
                file.release();
            } catch (Throwable t) {
                LOG.log(System.Logger.Level.ERROR, "release at unmount failed", t);
            }
        }
    }

    private static void checkName(String name) {
        if (name.isEmpty() || name.equals(".") || name.equals("..") || name.indexOf('/') >= 0
                || name.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("bad file name: " + name);
        }
    }

    @Override
    public String toString() {
        return "DeviceDirectory[" + fsName + "]";
    }
}
