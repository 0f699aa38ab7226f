package io.ibemu.emulator.ipoib;

import io.ibemu.kernel.Errno;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * One file of the TAP's real sysfs directory, read and written with the system calls themselves
 * so that the kernel's errno (EINVAL from {@code speed} of a down link, say) reaches the caller
 * of the view unchanged.
 */
record RealAttribute(Path path) {
    /** sysfs shows at most a page. */
    private static final int PAGE = 4096;

    /** The file's value as its show method gives it, or that method's errno. */
    byte[] read() throws Errno {
        int fd = open(Libc.O_RDONLY);
        try {
            byte[] page = new byte[PAGE];
            long n = Libc.CALLS.read(fd, page, page.length);
            if (n < 0) {
                throw Errno.of(Libc.errno());
            }
            return Arrays.copyOf(page, (int) n);
        } finally {
            Libc.CALLS.close(fd);
        }
    }

    /** Writes {@code value} in one write(2), as the caller's; the store method's errno fails it. */
    void write(byte[] value) throws Errno {
        int fd = open(Libc.O_WRONLY);
        try {
            if (Libc.CALLS.write(fd, value, value.length) < 0) {
                throw Errno.of(Libc.errno());
            }
        } finally {
            Libc.CALLS.close(fd);
        }
    }

    private int open(int flags) throws Errno {
        int fd = Libc.CALLS.open(path.toString(), flags | Libc.O_CLOEXEC);
        if (fd < 0) {
            throw Errno.of(Libc.errno());
        }
        return fd;
    }
}
