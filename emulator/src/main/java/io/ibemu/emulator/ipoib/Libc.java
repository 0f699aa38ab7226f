package io.ibemu.emulator.ipoib;

import jnr.ffi.LibraryLoader;
import jnr.ffi.Runtime;
import jnr.ffi.annotations.In;
import jnr.ffi.annotations.Out;

/** The libc calls of this package (the TAP, the namespace's sysfs files, nsfs, setns), loaded once. */
final class Libc {
    static final int O_RDONLY = 0;
    static final int O_WRONLY = 1;
    static final int O_RDWR = 2;
    static final int O_CLOEXEC = 02000000;
    /** setns(2)'s nstype for a network namespace. */
    static final int CLONE_NEWNET = 0x40000000;

    /** Public because jnr-ffi implements it from a class loader of its own. */
    public interface Calls {
        int open(String path, int flags);

        int ioctl(int fd, long request, @In byte[] arg);

        int ioctl(int fd, long request, long arg);

        long read(int fd, @Out byte[] buf, long count);

        long write(int fd, @In byte[] buf, long count);

        int close(int fd);

        int setns(int fd, int nstype);
    }

    static final Calls CALLS = LibraryLoader.create(Calls.class).failImmediately().load("c");
    private static final Runtime RUNTIME = Runtime.getRuntime(CALLS);

    private Libc() {
    }

    static int errno() {
        return RUNTIME.getLastError();
    }
}
