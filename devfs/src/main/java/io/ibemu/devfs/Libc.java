package io.ibemu.devfs;

import jnr.ffi.LibraryLoader;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;

/** The libc calls of this package; pointers to native memory travel as addresses in longs. */
final class Libc {

    /** Public because jnr-ffi implements it from a class loader of its own. */
    public interface Calls {
        int statfs(String path, Pointer buf);

        int umount2(String target, int flags);

        int mount(String source, String target, String fsType, long flags, String data);

        int getuid();

        int getgid();

        int open(String path, int flags);

        int close(int fd);

        int mknod(String path, int mode, long dev);

        int unlink(String path);

        int gettid();

        /** Takes the iovec array's address: a FUSE reply as libfuse built it. */
        long writev(int fd, long iov, int count);
    }

    static final Calls CALLS = LibraryLoader.create(Calls.class).failImmediately().load("c");
    static final Runtime RUNTIME = Runtime.getRuntime(CALLS);

    private Libc() {
    }

    /** statfs(2) of {@code path}: the f_type, or -1. */
    static long statfs(java.nio.file.Path path) {
        jnr.ffi.Pointer buf = RUNTIME.getMemoryManager().allocateDirect(256);
        return CALLS.statfs(path.toString(), buf) == 0 ? buf.getLong(0) : -1;
    }

    static int errno() {
        return RUNTIME.getLastError();
    }
}
