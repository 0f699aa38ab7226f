package io.ibemu.devfs;

import jnr.ffi.LibraryLoader;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;

/** The libc calls a test makes on device files, as a C program would. */
final class Posix {

    public interface Libc {
        int open(String path, int flags);

        int close(int fd);

        int dup(int fd);

        long read(int fd, Pointer buf, long count);

        long write(int fd, Pointer buf, long count);

        int ioctl(int fd, long request, Pointer arg);

        int poll(Pointer fds, long nfds, int timeout);

        int fcntl(int fd, int cmd, int arg);

        int select(int nfds, Pointer readfds, Pointer writefds, Pointer exceptfds, Pointer timeout);

        int epoll_create1(int flags);

        int epoll_ctl(int epfd, int op, int fd, Pointer event);

        int epoll_wait(int epfd, Pointer events, int maxevents, int timeout);

        Pointer mmap(Pointer addr, long length, int prot, int flags, int fd, long offset);

        int munmap(Pointer addr, long length);

        int mprotect(Pointer addr, long length, int prot);

        int getpid();

    }

    static final Libc LIBC = LibraryLoader.create(Libc.class).load("c");
    static final Runtime RUNTIME = Runtime.getRuntime(LIBC);

    static final int O_RDONLY = 0;
    static final int O_RDWR = 2;
    static final int O_NONBLOCK = 04000;
    static final int F_GETFL = 3;
    static final int F_SETFL = 4;
    static final int POLLIN = 1;
    static final int POLLOUT = 4;
    static final int EPOLLIN = 1;
    static final int EPOLL_CTL_ADD = 1;
    static final int PROT_READ_WRITE = 3;
    static final int MAP_PRIVATE_ANONYMOUS = 0x22;

    private Posix() {
    }

    static int errno() {
        return RUNTIME.getLastError();
    }

    static Pointer memory(int size) {
        return Memory.allocateDirect(RUNTIME, size);
    }

    static Pointer bytes(byte[] data) {
        Pointer p = memory(Math.max(1, data.length));
        p.put(0, data, 0, data.length);
        return p;
    }

    static byte[] get(Pointer p, long offset, int length) {
        byte[] data = new byte[length];
        p.get(offset, data, 0, length);
        return data;
    }

    /** _IOC(dir, type, nr, size) as in asm-generic/ioctl.h. */
    static int ioc(int dir, char type, int nr, int size) {
        return (dir << 30) | (size << 16) | (type << 8) | nr;
    }
}
