package io.ibemu.sysfs;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A sysfs-like tree of directories, attribute files with live values and symlinks, served
 * over FUSE. Build it through {@link #root()}, before or after {@link #mount}; changes show at
 * once in the mount. Mounts once; {@link #close()} unmounts.
 */
public final class SysfsTree implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(SysfsTree.class.getName());

    /** No kernel caching of attributes or entries, so values and tree changes show at once. */
    private static final String OPTIONS = "allow_other,default_permissions,use_ino,nonempty,big_writes,"
            + "attr_timeout=0,entry_timeout=0,negative_timeout=0";
    private static final long MOUNT_TIMEOUT_MILLIS = 10_000;
    private static final long UNMOUNT_TIMEOUT_MILLIS = 5_000;

    private final String fsName;
    private final SysDir root = new SysDir(new AtomicLong());
    private final TreeFileSystem fileSystem = new TreeFileSystem(root);
    private Path mountPoint;
    private Thread loop;
    private boolean closed;

    public SysfsTree() {
        this("sysfs-tree");
    }

    /** {@code fsName} is the mount's source as /proc/mounts shows it. */
    public SysfsTree(String fsName) {
        if (fsName.isEmpty() || !fsName.matches("[A-Za-z0-9._:@+-]+")) {
            throw new IllegalArgumentException("fsname must be a plain word: " + fsName);
        }
        this.fsName = fsName;
    }

    public SysDir root() {
        return root;
    }

    /** Mounts the tree on an existing directory; returns once the mount answers requests. */
    public synchronized void mount(Path mountPoint) throws IOException {
        if (loop != null || closed) {
            throw new IllegalStateException("a SysfsTree mounts once");
        }
        Path target = mountPoint.toAbsolutePath().normalize();
        if (!Files.isDirectory(target)) {
            throw new IOException("not a directory: " + target);
        }
        CompletableFuture<Void> ended = new CompletableFuture<>();
        this.mountPoint = target;
        loop = new Thread(() -> serve(target, ended), "sysfs-tree " + target);
        loop.setDaemon(true);
        loop.start();
        try {
            awaitAnswering(target, ended);
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    public Path mountPoint() {
        return mountPoint;
    }

    /**
     * Detaches the mount and waits for the FUSE loop to end. Idempotent. While a file is open
     * in it or a bind mount of it remains, the loop keeps serving until they are gone.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (loop == null) {
            return;
        }
        if (fileSystem.initialized()) {
            detach(mountPoint);
        }
        fileSystem.markUnmounted();
        try {
            loop.join(UNMOUNT_TIMEOUT_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (loop.isAlive()) {
            LOG.log(Level.WARNING, "FUSE loop of " + mountPoint + " still serving: open files or bind mounts remain");
        }
    }

    private void serve(Path target, CompletableFuture<Void> ended) {
        try {
            fileSystem.mount(target, true, false, new String[] {"-o", OPTIONS + ",fsname=" + fsName});
            ended.complete(null);
        } catch (Throwable e) {
            ended.completeExceptionally(e);
        }
    }

    private void awaitAnswering(Path target, CompletableFuture<Void> ended) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(MOUNT_TIMEOUT_MILLIS);
        try {
            while (!fileSystem.awaitInitialized(20, TimeUnit.MILLISECONDS)) {
                if (ended.isDone()) {
                    throw new IOException("mounting " + target + " failed", ended.handle((ok, e) -> e).join());
                }
                if (System.nanoTime() > deadline) {
                    throw new IOException("mount of " + target + " did not answer");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while mounting " + target, e);
        }
        // a round trip through the mount: the root's inode comes from this tree
        Object inode = Files.getAttribute(target, "unix:ino");
        if (!(inode instanceof Long number) || number != root.inode()) {
            throw new IOException(target + " does not show the tree (inode " + inode + ")");
        }
    }

    private static void detach(Path target) {
        try {
            LibC libc = LibC.load();
            if (libc.umount2(target.toString(), LibC.MNT_DETACH) != 0) {
                int errno = jnr.ffi.Runtime.getRuntime(libc).getLastError();
                LOG.log(Level.WARNING, "umount2 " + target + " failed: errno " + errno);
            }
        } catch (RuntimeException | LinkageError e) {
            LOG.log(Level.WARNING, "umount2 " + target + " failed", e);
        }
    }
}
