package io.ibemu.devfs;

import io.ibemu.devfs.device.CharDevice;
import io.ibemu.devfs.device.DeviceFile;
import io.ibemu.devfs.device.DeviceNode;
import io.ibemu.devfs.fuse.Channel;
import io.ibemu.devfs.fuse.FuseIn;
import io.ibemu.devfs.fuse.FuseOut;
import io.ibemu.devfs.fuse.Opcode;
import io.ibemu.devfs.fuse.Request;
import io.ibemu.devfs.fuse.Session;
import io.ibemu.kernel.Errno;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One {@link CharDevice} served as a real character device through CUSE: a connection on
 * /dev/cuse whose CUSE_INIT reply names the node ({@code DEVNAME=infiniband/umad0}, made by the
 * kernel in devtmpfs) and its number; the opens of that node then arrive as OPEN requests on
 * the connection, and everything after as {@link DeviceRequests} serves a FUSE file.
 *
 * <p>The kernel registers the device while it takes the INIT reply (cuse_process_init_reply:
 * register_chrdev_region, device_add), and aborts the connection if the number is taken (ib_umad
 * or ib_uverbs loaded): {@link #start} then fails. Closing the connection unregisters it.
 */
public final class CuseDevice implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(CuseDevice.class.getName());
    /** The CUSE control device (the cuse module). */
    public static final Path CONTROL = Path.of("/dev/cuse");
    private static final int MAJOR = 7;
    /** CUSE_UNRESTRICTED_IOCTL is not asked for: every ioctl of umad and uverbs is sized by its
     * number, so the restricted protocol (fuse_do_ioctl copies _IOC_SIZE each way) suffices. */
    private static final int INIT_FLAGS = 0;
    private static final long START_TIMEOUT_MS = 10_000;
    private static final long CLOSE_TIMEOUT_MS = 5_000;

    private final String devName;
    private final int major;
    private final int minor;
    private final CharDevice device;
    /** Files opened by this daemon's own threads for a caller: the OPEN of that thread takes it. */
    private final Map<Integer, DeviceFile> handoffs = new ConcurrentHashMap<>();
    private final CountDownLatch initialized = new CountDownLatch(1);
    private Channel channel;
    private DeviceRequests files;
    private Session session;
    private Thread loop;

    /** {@code devName} relative to /dev ("infiniband/umad0"). */
    public CuseDevice(String devName, int major, int minor, CharDevice device) {
        this.devName = devName;
        this.major = major;
        this.minor = minor;
        this.device = device;
    }

    /** Whether this kernel offers CUSE (the cuse module loaded: /dev/cuse exists). */
    public static boolean available() {
        return Files.exists(CONTROL);
    }

    /** The node the kernel makes. */
    public Path node() {
        return Path.of("/dev").resolve(devName);
    }

    public int major() {
        return major;
    }

    public int minor() {
        return minor;
    }

    /** Opens the connection and returns once the kernel has made the node {@code major:minor} with {@code mode}. */
    public synchronized void start(int mode) throws IOException {
        if (!available()) {
            throw new IOException(CONTROL + " does not exist: this kernel has no CUSE (modprobe cuse), "
                    + "or use the FUSE backend (--backend fuse)");
        }
        channel = Channel.open(CONTROL.toString());
        files = new DeviceRequests(channel);
        Map<Integer, Session.Handler> handlers = new HashMap<>(files.handlers());
        handlers.put(Opcode.CUSE_INIT, this::init);
        handlers.put(Opcode.OPEN, this::open);
        session = new Session("cuse-" + devName.replace('/', '!'), channel, handlers, DirectFileSystem.MAX_WRITE);
        loop = new Thread(() -> {
            session.serve();
            files.startClosing();
            channel.close();
        }, "cuse-" + devName.replace('/', '!'));
        loop.setDaemon(true);
        loop.start();
        try {
            if (!initialized.await(START_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                throw new IOException("CUSE did not send INIT for " + devName);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while starting " + devName, e);
        }
        // cuse_process_init_reply ran within the reply's write: the node exists now, or the number was taken
        Path node = node();
        long rdev = rdevOf(node);
        if (rdev != DeviceNode.rdev(major, minor)) {
            close();
            throw new IOException("CUSE made no node " + node + " " + major + ":" + minor
                    + " (is the number taken? ib_umad and ib_uverbs hold 231:*: unload them for the CUSE backend)");
        }
        Files.setPosixFilePermissions(node, java.nio.file.attribute.PosixFilePermissions.fromString(
                DeviceNode.permissionString(mode)));
    }

    /** st_rdev of {@code path} if it is a character device, else -1. */
    private static long rdevOf(Path path) {
        try {
            if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
                return -1;
            }
            Map<String, Object> a = Files.readAttributes(path, "unix:mode,rdev", LinkOption.NOFOLLOW_LINKS);
            return ((Integer) a.get("mode") & 0170000) == 0020000 ? (Long) a.get("rdev") : -1;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * Hands {@code file} to the next OPEN made by the calling thread (the supervisor opening the
     * node on a caller's behalf); {@link #withdraw} if that open failed.
     */
    void handOff(DeviceFile file) {
        handoffs.put(Libc.CALLS.gettid(), file);
    }

    void withdraw() {
        handoffs.remove(Libc.CALLS.gettid());
    }

    private void init(Request request) {
        FuseIn.CuseInit in = FuseIn.CuseInit.decode(request.in(), Request.BODY);
        if (in.major() != MAJOR) {
            LOG.log(System.Logger.Level.ERROR, "{0}: the kernel speaks CUSE {1}.{2}", devName, in.major(), in.minor());
            request.replyError(71); // EPROTO
            initialized.countDown();
            return;
        }
        int minorVersion = Math.min(in.minor(), DirectFileSystem.MINOR);
        request.reply(FuseOut.cuseInit(request.out(), Request.REPLY, MAJOR, minorVersion, INIT_FLAGS,
                DirectFileSystem.MAX_WRITE, DirectFileSystem.MAX_WRITE, major, minor, "DEVNAME=" + devName));
        initialized.countDown();
    }

    /** cuse_open -> fuse_do_open: nodeid 0, the node's only file. */
    private void open(Request request) throws Errno {
        DeviceFile handed = handoffs.remove(request.pid());
        long fh;
        if (handed != null) {
            fh = files.adopt(handed, devName);
        } else {
            fh = files.open(request, device, devName);
        }
        DeviceRequests.replyOpen(request, fh);
    }

    /**
     * Unregisters the device (its node goes) and ends the workers: each is woken by an open of
     * the node, which fails once the session stops. Files still open are released.
     */
    @Override
    public void close() {
        Thread thread;
        synchronized (this) {
            thread = loop;
            loop = null;
        }
        if (thread == null) {
            return;
        }
        files.startClosing();
        session.stop();
        Path node = node();
        boolean ended = session.endWorkers(() -> {
            int fd = Libc.CALLS.open(node.toString(), 2 | 04000 | 02000000);
            if (fd >= 0) {
                Libc.CALLS.close(fd);
            }
        }, thread, CLOSE_TIMEOUT_MS);
        if (!ended) {
            LOG.log(System.Logger.Level.ERROR, "{0}: a device call ignores interruption", devName);
            channel.close();
        }
        for (OpenFile file : files.handles.removeAll()) {
            try {
                file.release();
            } catch (Throwable t) {
                LOG.log(System.Logger.Level.ERROR, "release at close failed", t);
            }
        }
    }

    @Override
    public String toString() {
        return "CuseDevice[" + devName + " " + major + ":" + minor + "]";
    }
}
