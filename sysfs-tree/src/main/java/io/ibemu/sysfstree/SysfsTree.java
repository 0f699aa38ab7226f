package io.ibemu.sysfstree;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A sysfs-like tree of directories, attribute files with live values and symlinks, served
 * over FUSE. Build it through {@link #root()}, before or after {@link #mount}; changes show at
 * once in the mount. Mounts once; {@link #close()} unmounts.
 */
public final class SysfsTree implements AutoCloseable {

    /**
     * Mount options: the kernel caches entries and attributes ({@link TreeFileSystem}
     * invalidates them on change) but no negative lookups, so an added entry shows at once.
     */
    private static final String OPTIONS = "allow_other,default_permissions,nonempty,big_writes";
    private static final long MOUNT_TIMEOUT_MILLIS = 10_000;

    private final String fsName;
    private final TreeContext context = new TreeContext();
    private final SysDir root = new SysDir(context);
    private final TreeFileSystem fileSystem = new TreeFileSystem(root, context);
    private Path mountPoint;
    private boolean mounted;
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
        if (mounted || closed) {
            throw new IllegalStateException("a SysfsTree mounts once");
        }
        Path target = mountPoint.toAbsolutePath().normalize();
        if (!Files.isDirectory(target)) {
            throw new IOException("not a directory: " + target);
        }
        this.mountPoint = target;
        fileSystem.mount(target, OPTIONS + ",fsname=" + fsName);
        mounted = true;
        try {
            awaitAnswering(target);
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    public Path mountPoint() {
        return mountPoint;
    }

    /**
     * Ends the FUSE loop and unmounts, without waiting on a timeout: the connection is aborted,
     * so bind mounts of the tree and files still open in it fail (ENOTCONN) from then on.
     * Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (mounted) {
            fileSystem.unmount();
        }
    }

    private void awaitAnswering(Path target) throws IOException {
        try {
            if (!fileSystem.awaitInitialized(MOUNT_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)) {
                throw new IOException("mount of " + target + " did not answer");
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
}
