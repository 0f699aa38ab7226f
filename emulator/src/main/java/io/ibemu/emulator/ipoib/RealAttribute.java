package io.ibemu.emulator.ipoib;

import io.ibemu.kernel.Errno;
import java.nio.file.Path;
import java.util.Arrays;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Runtime;
import jnr.ffi.annotations.In;
import jnr.ffi.annotations.Out;

/**
 * One file of the TAP's real sysfs directory, read and written with the system calls themselves
 * so that the kernel's errno (EINVAL from {@code speed} of a down link, say) reaches the caller
 * of the view unchanged.
 */
record RealAttribute(Path path) {
    private static final int O_RDONLY = 0;
    private static final int O_WRONLY = 1;
    private static final int O_CLOEXEC = 0x80000;
    /** sysfs shows at most a page. */
    private static final int PAGE = 4096;

    /** Public because jnr-ffi implements it from a class loader of its own. */
    public interface Calls {
        int open(String path, int flags);

        long read(int fd, @Out byte[] buf, long count);

        long write(int fd, @In byte[] buf, long count);

        int close(int fd);
    }

    private static final Calls CALLS = LibraryLoader.create(Calls.class).failImmediately().load("c");
    private static final Runtime RUNTIME = Runtime.getRuntime(CALLS);

    /** The file's value as its show method gives it, or that method's errno. */
    byte[] read() throws Errno {
        int fd = open(O_RDONLY);
        try {
            byte[] page = new byte[PAGE];
            long n = CALLS.read(fd, page, page.length);
            if (n < 0) {
                throw Errno.of(RUNTIME.getLastError());
            }
            return Arrays.copyOf(page, (int) n);
        } finally {
            CALLS.close(fd);
        }
    }

    /** Writes {@code value} in one write(2), as the caller's; the store method's errno fails it. */
    void write(byte[] value) throws Errno {
        int fd = open(O_WRONLY);
        try {
            if (CALLS.write(fd, value, value.length) < 0) {
                throw Errno.of(RUNTIME.getLastError());
            }
        } finally {
            CALLS.close(fd);
        }
    }

    private int open(int flags) throws Errno {
        int fd = CALLS.open(path.toString(), flags | O_CLOEXEC);
        if (fd < 0) {
            throw Errno.of(RUNTIME.getLastError());
        }
        return fd;
    }
}
