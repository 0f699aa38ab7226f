package io.ibemu.devfs.ns;

import jnr.ffi.LibraryLoader;
import jnr.ffi.Runtime;

import java.io.IOException;
import java.nio.file.Path;

/** mount(2), umount2(2) and O_PATH opens through libc, failing with the errno's text. */
final class MountCalls {

    /** Public because jnr-ffi implements it from a class loader of its own. */
    public interface Libc {
        int mount(String source, String target, String fsType, long flags, String data);

        int umount2(String target, int flags);

        int open(String path, int flags);

        int close(int fd);

        int mknod(String path, int mode, long dev);

        String strerror(int errno);
    }

    static final long MS_NOSUID = 2;
    static final long MS_NODEV = 4;
    static final long MS_NOEXEC = 8;
    static final long MS_BIND = 4096;
    static final long MS_REC = 16384;
    static final long MS_PRIVATE = 1 << 18;

    private static final int O_DIRECTORY = 0200000;
    private static final int O_PATH = 010000000;
    private static final int O_CLOEXEC = 02000000;

    private static final Libc LIBC = LibraryLoader.create(Libc.class).failImmediately().load("c");
    private static final Runtime RUNTIME = Runtime.getRuntime(LIBC);

    private MountCalls() {
    }

    static void mount(String source, Path target, String fsType, long flags, String data) throws IOException {
        if (LIBC.mount(source, target.toString(), fsType, flags, data) != 0) {
            throw failure("mount " + (source == null ? fsType : source) + " on " + target);
        }
    }

    static void bind(Path source, Path target, boolean recursive) throws IOException {
        mount(source.toString(), target, null, MS_BIND | (recursive ? MS_REC : 0), null);
    }

    static void tmpfs(Path target, int mode, int uid, int gid) throws IOException {
        tmpfs(target, mode, uid, gid, MS_NOSUID);
    }

    static void tmpfs(Path target, int mode, int uid, int gid, long flags) throws IOException {
        // In a user namespace the host's root owns /dev, /sys, /run without a mapping here (they
        // show as the overflow id): tmpfs refuses such an owner (EINVAL), so the tmpfs keeps ours.
        String options = String.format("mode=%o", mode & 07777)
                + (mapped(uid, "uid_map") ? ",uid=" + uid : "") + (mapped(gid, "gid_map") ? ",gid=" + gid : "");
        mount("tmpfs", target, "tmpfs", flags, options);
    }

    /** Whether {@code id} has a mapping in this process's user namespace (/proc/self/uid_map or gid_map). */
    static boolean mapped(int id, String map) throws IOException {
        for (String line : java.nio.file.Files.readAllLines(Path.of("/proc/self", map))) {
            String[] f = line.trim().split("\\s+");
            long inside = Long.parseLong(f[0]), count = Long.parseLong(f[2]);
            if (Integer.toUnsignedLong(id) >= inside && Integer.toUnsignedLong(id) < inside + count) {
                return true;
            }
        }
        return false;
    }

    /** umount2 with MNT_DETACH: the mount goes now, files open below it keep working. */
    static void detach(Path target) throws IOException {
        if (LIBC.umount2(target.toString(), MNT_DETACH) != 0) {
            throw failure("umount " + target);
        }
    }

    private static final int MNT_DETACH = 2;

    /** A character device node; {@code dev} as glibc's makedev encodes it. */
    static void mknod(Path path, int mode, long dev) throws IOException {
        if (LIBC.mknod(path.toString(), 0020000 | (mode & 07777), dev) != 0) {
            throw failure("mknod " + path);
        }
    }

    /** mknod of a char device, false when it is not permitted here (EPERM), else as mknod. */
    static boolean mknodIfPermitted(Path path, int mode, long dev) throws IOException {
        if (LIBC.mknod(path.toString(), 0020000 | (mode & 07777), dev) == 0) {
            return true;
        }
        if (RUNTIME.getLastError() == EPERM) {
            return false;
        }
        throw failure("mknod " + path);
    }

    private static final int EPERM = 1;

    /** A handle on the directory itself, which keeps reaching what lies under a later mount on it. */
    static int openPath(Path directory) throws IOException {
        int fd = LIBC.open(directory.toString(), O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
            throw failure("open " + directory);
        }
        return fd;
    }

    static void close(int fd) {
        LIBC.close(fd);
    }

    private static IOException failure(String what) {
        int errno = RUNTIME.getLastError();
        return new IOException(what + ": " + LIBC.strerror(errno) + " (errno " + errno + ")");
    }
}
