package io.ibemu.devfs.libfuse;


import com.kenai.jffi.MemoryIO;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A file system served through libfuse2's low-level API ({@code fuse_lowlevel.h}) on a
 * {@link FuseLoop}: the caller's operations table answers by inode and replies itself, and may
 * tell the kernel to drop what it cached ({@link #invalidateInode}, {@link #invalidateEntry}),
 * so attributes and entries can be cached in the kernel and still change at once.
 *
 * <p>The operations table is native memory laid out as {@code struct fuse_lowlevel_ops}; every
 * callback must reply exactly once (fuse_reply_*). {@link #close} ends the loop without
 * waiting for a timeout unless a callback never returns.
 */
public final class LowLevelMount implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(LowLevelMount.class.getName());
    private static final MemoryIO MEMORY = MemoryIO.getInstance();
    private static final long CLOSE_TIMEOUT_MS = 5_000;
    private static final int MNT_DETACH = 2;

    private final String name;
    private final Path mountPoint;
    private final long session;
    private final long channel;
    private final Thread loop;
    private final Object notifications = new Object();
    private boolean open = true; // guarded by notifications
    private int notifying; // guarded by notifications: notifications in progress

    private LowLevelMount(String name, Path mountPoint, long session, long channel) {
        this.name = name;
        this.mountPoint = mountPoint;
        this.session = session;
        this.channel = channel;
        this.loop = new Thread(this::serve, name);
        loop.setDaemon(true);
    }

    /**
     * Mounts at {@code mountPoint} with mount and session {@code options} ("-o" text) and starts
     * serving with {@code ops} (the address of a {@code fuse_lowlevel_ops} of {@code opsSize}
     * bytes, kept alive by the caller until {@link #close}). Requests wait in the kernel until
     * the loop answers FUSE_INIT, which calls the table's init.
     */
    public static LowLevelMount start(String name, Path mountPoint, String options, long ops, long opsSize)
            throws IOException {
        String[] argv = {name, "-o", options};
        long args = FuseArgs.allocate(argv);
        try {
            long channel = Fuse2.LIB.fuse_mount(mountPoint.toString(), args);
            if (channel == 0) {
                throw new IOException("cannot mount " + name + " at " + mountPoint + " (see libfuse's message on stderr)");
            }
            long session = Fuse2.LIB.fuse_lowlevel_new(args, ops, opsSize, 0);
            if (session == 0) {
                Fuse2.LIB.fuse_unmount(mountPoint.toString(), channel);
                throw new IOException("libfuse refused the options of " + name + ": " + options);
            }
            Fuse2.LIB.fuse_session_add_chan(session, channel);
            LowLevelMount mount = new LowLevelMount(name, mountPoint, session, channel);
            mount.loop.start();
            return mount;
        } finally {
            FuseArgs.free(args);
        }
    }

    public Path mountPoint() {
        return mountPoint;
    }

    private void serve() {
        try {
            FuseLoop.serve(name, session, channel);
        } finally {
            if (notificationsEnded()) {
                Fuse2.LIB.fuse_session_remove_chan(channel);
                Fuse2.LIB.fuse_session_destroy(session);
                // closes /dev/fuse, which aborts the connection (bind mounts of the tree then
                // fail with ENOTCONN), and detaches the mount point
                Fuse2.LIB.fuse_unmount(mountPoint.toString(), channel);
            } else {
                // a notification still uses the channel: close our /dev/fuse descriptor (the
                // connection aborts once that call lets go of the file) and detach, leaving the
                // channel allocated
                LOG.log(System.Logger.Level.WARNING, "{0}: an invalidation is still in the kernel at unmount", name);
                Libc.CALLS.close(Fuse2.LIB.fuse_chan_fd(channel));
                Libc.CALLS.umount2(mountPoint.toString(), MNT_DETACH);
            }
        }
    }

    /** Refuses new notifications and waits (boundedly) for those in progress; true when none is left. */
    private boolean notificationsEnded() {
        synchronized (notifications) {
            open = false;
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(CLOSE_TIMEOUT_MS);
            while (notifying > 0 && System.nanoTime() < deadline) {
                try {
                    notifications.wait(10);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return notifying == 0;
        }
    }

    /** Drops the kernel's cached attributes of inode {@code inode} (fuse_lowlevel_notify_inval_inode). */
    public void invalidateInode(long inode) {
        if (startNotifying()) {
            try {
                Fuse2.LIB.fuse_lowlevel_notify_inval_inode(channel, inode, 0, 0);
            } finally {
                endNotifying();
            }
        }
    }

    /** Drops the kernel's cached entry {@code entryName} of directory {@code parent} (notify_inval_entry). */
    public void invalidateEntry(long parent, String entryName) {
        if (!startNotifying()) {
            return;
        }
        byte[] bytes = entryName.getBytes(StandardCharsets.UTF_8);
        long cName = MEMORY.allocateMemory(bytes.length + 1, false);
        try {
            MEMORY.putZeroTerminatedByteArray(cName, bytes, 0, bytes.length);
            Fuse2.LIB.fuse_lowlevel_notify_inval_entry(channel, parent, cName, bytes.length);
        } finally {
            MEMORY.freeMemory(cName);
            endNotifying();
        }
    }

    /** The channel is freed at unmount: a notification holds it off while it uses the channel. */
    private boolean startNotifying() {
        synchronized (notifications) {
            if (open) {
                notifying++;
            }
            return open;
        }
    }

    private void endNotifying() {
        synchronized (notifications) {
            notifying--;
            notifications.notifyAll();
        }
    }

    /** To call from a callback just before it replies: the worker counts as idle (see {@link FuseLoop}). */
    public static void answered() {
        FuseLoop.answered();
    }

    /** Ends the session and its workers, then the loop unmounts. Idempotent. */
    @Override
    public void close() {
        if (!loop.isAlive()) {
            return;
        }
        Fuse2.LIB.fuse_session_exit(session);
        if (!FuseLoop.endWorkers(name, loop, mountPoint, CLOSE_TIMEOUT_MS)) {
            LOG.log(System.Logger.Level.ERROR, "{0}: a callback does not return; detaching {1}", name, mountPoint);
            Libc.CALLS.umount2(mountPoint.toString(), MNT_DETACH);
        }
    }

    /**
     * {@code struct fuse_args {int argc; char **argv; int allocated;}} in native memory. libfuse's
     * option parsing may swap in a vector of its own (allocated = 1): that one is freed by
     * fuse_opt_free_args, ours by {@link #free}.
     */
    private static final class FuseArgs {
        private static final int SIZE = 24;

        static long allocate(String[] argv) {
            long args = MEMORY.allocateMemory(SIZE + 8L * (argv.length + 1), true);
            long vector = args + SIZE;
            for (int i = 0; i < argv.length; i++) {
                byte[] bytes = argv[i].getBytes(StandardCharsets.UTF_8);
                long text = MEMORY.allocateMemory(bytes.length + 1, false);
                MEMORY.putZeroTerminatedByteArray(text, bytes, 0, bytes.length);
                MEMORY.putAddress(vector + 8L * i, text);
            }
            MEMORY.putInt(args, argv.length);
            MEMORY.putAddress(args + 8, vector);
            return args;
        }

        static void free(long args) {
            if (MEMORY.getInt(args + 16) != 0) {
                Fuse2.LIB.fuse_opt_free_args(args);
            }
            for (long text, at = args + SIZE; (text = MEMORY.getAddress(at)) != 0; at += 8) {
                MEMORY.freeMemory(text);
            }
            MEMORY.freeMemory(args);
        }
    }
}
