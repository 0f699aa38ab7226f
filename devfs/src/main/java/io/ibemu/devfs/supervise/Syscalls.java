package io.ibemu.devfs.supervise;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.MemoryIO;
import com.kenai.jffi.Type;
import io.ibemu.kernel.Errno;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Runtime;

/**
 * The system calls the supervisor makes (x86_64 numbers: the stub installs its filter only
 * there), with the seccomp ioctls and struct layouts of {@code <linux/seccomp.h>} as data.
 * Native memory travels as addresses in longs.
 */
final class Syscalls {

    /** Public because jnr-ffi implements it from a class loader of its own. */
    public interface Libc {
        long syscall(long number, long a, long b, long c, long d, long e, long f);

        int ioctl(int fd, long request, long arg);

        int poll(long fds, long count, int timeoutMs);

        int close(int fd);

        int open(long path, int flags);

        long read(int fd, long buffer, long count);
    }

    static final Libc LIBC = LibraryLoader.create(Libc.class).failImmediately().load("c");
    /** int statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *buf), once per write. */
    private static final CallContext STATX_CALL = CallContext.getCallContext(Type.SINT32,
            new Type[] {Type.SINT32, Type.POINTER, Type.SINT32, Type.UINT32, Type.POINTER}, CallingConvention.DEFAULT,
            true);
    private static final long STATX_FUNCTION = com.kenai.jffi.Library.getDefault().getSymbolAddress("statx");
    private static final Runtime RUNTIME = Runtime.getRuntime(LIBC);
    static final MemoryIO MEMORY = MemoryIO.getInstance();

    // syscall numbers (x86_64)
    static final int SYS_READ = 0;
    static final int SYS_WRITE = 1;
    static final int SYS_OPEN = 2;
    static final int SYS_FSTAT = 5;
    static final int SYS_LSEEK = 8;
    static final int SYS_MMAP = 9;
    static final int SYS_PREAD64 = 17;
    static final int SYS_FTRUNCATE = 77;
    static final int SYS_FALLOCATE = 285;
    static final int SYS_PREADV = 295;
    static final int SYS_PWRITEV = 296;
    static final int SYS_PREADV2 = 327;
    static final int SYS_PWRITEV2 = 328;
    static final int SYS_RT_SIGACTION = 13;
    static final int SYS_RT_SIGRETURN = 15;
    static final int SYS_IOCTL = 16;
    static final int SYS_PWRITE64 = 18;
    static final int SYS_SENDTO = 44;
    static final int SYS_RECVFROM = 45;
    static final int SYS_READV = 19;
    static final int SYS_WRITEV = 20;
    static final int SYS_SHUTDOWN = 48;
    static final int SYS_DUP = 32;
    static final int SYS_DUP2 = 33;
    static final int SYS_FCNTL = 72;
    static final int SYS_GETTID = 186;
    static final int SYS_TGKILL = 234;
    static final int SYS_DUP3 = 292;
    static final int SYS_SOCKETPAIR = 53;
    static final int SYS_SETSOCKOPT = 54;
    static final int SYS_EPOLL_WAIT = 232;
    static final int SYS_EPOLL_CTL = 233;
    static final int SYS_EVENTFD2 = 290;
    static final int SYS_EPOLL_CREATE1 = 291;
    static final int SYS_OPENAT = 257;
    static final int SYS_NEWFSTATAT = 262;
    static final int SYS_STATX = 332;
    static final int SYS_PIDFD_OPEN = 434;
    static final int SYS_OPENAT2 = 437;
    static final int SYS_PIDFD_GETFD = 438;

    // <linux/seccomp.h>: _IOWR('!', 0, struct seccomp_notif) ...
    static final long NOTIF_RECV = 0xc0502100L;
    static final long NOTIF_SEND = 0xc0182101L;
    static final long NOTIF_ID_VALID = 0x40082102L;
    static final long NOTIF_ADDFD = 0x40182103L;
    /** SECCOMP_IOW(4, __u64), Linux 6.6: flags of the listener, passed by value. */
    static final long NOTIF_SET_FLAGS = 0x40082104L;
    /** SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP: wake the woken task on the waker's CPU. */
    static final long NOTIF_FD_SYNC_WAKE_UP = 1;
    /** struct seccomp_notif {u64 id; u32 pid; u32 flags; struct seccomp_data {int nr; u32 arch; u64 ip; u64 args[6]}}. */
    static final int NOTIF_SIZE = 80;
    static final int NOTIF_ID = 0;
    static final int NOTIF_PID = 8;
    static final int NOTIF_NR = 16;
    static final int NOTIF_ARGS = 32;
    /** struct seccomp_notif_resp {u64 id; s64 val; s32 error; u32 flags}. */
    static final int RESP_SIZE = 24;
    static final int FLAG_CONTINUE = 1;
    /** struct seccomp_notif_addfd {u64 id; u32 flags; u32 srcfd; u32 newfd; u32 newfd_flags}. */
    static final int ADDFD_SIZE = 24;
    static final int ADDFD_SETFD = 1;
    static final int ADDFD_SEND = 2;

    static final int AT_FDCWD = -100;
    static final int AT_EMPTY_PATH = 0x1000;
    static final int AT_STATX_DONT_SYNC = 0x4000;
    static final int STATX_INO = 0x100;
    static final int STAT_SIZE = 144;
    static final int STATX_SIZE = 256;
    static final int STATX_INO_OFFSET = 32;
    static final int STATX_DEV_MAJOR = 136;
    static final int STATX_DEV_MINOR = 140;

    static final int F_DUPFD = 0;
    static final int F_SETFL = 4;
    static final int F_DUPFD_CLOEXEC = 1030;

    static final short POLLIN = 1;
    static final short POLLHUP = 0x10;

    static final int O_ACCMODE = 3;
    static final int O_RDONLY = 0;
    static final int O_WRONLY = 1;
    static final int O_RDWR = 2;
    static final int O_CREAT = 0100;
    static final int O_EXCL = 0200;
    static final int O_NONBLOCK = 04000;
    static final int O_CLOEXEC = 02000000;
    static final int O_PATH = 010000000;

    private Syscalls() {
    }

    static int errno() {
        return RUNTIME.getLastError();
    }

    /**
     * statx(2) through jffi's typed invoker, on the per-write lookup: jnr-ffi's seven-argument
     * {@code syscall()} takes its slow, allocating path. Returns 0 or -1 (errno in {@link #errno()}).
     */
    static int statx(int dirfd, long path, int flags, int mask, long buffer) {
        if (STATX_FUNCTION == 0) { // a libc before 2.28 has no wrapper
            return (int) LIBC.syscall(SYS_STATX, dirfd, path, flags, mask, buffer, 0);
        }
        return (int) Invoker.getInstance().invokeN5(STATX_CALL, STATX_FUNCTION, dirfd, path, flags, mask, buffer);
    }

    /** A syscall's result, or the Errno it failed with. */
    static long check(long result) throws Errno {
        if (result < 0) {
            throw Errno.of(errno());
        }
        return result;
    }

    static long syscall(long number, long a, long b, long c, long d, long e) throws Errno {
        return check(LIBC.syscall(number, a, b, c, d, e, 0));
    }

    /** A NUL-terminated copy of {@code s} in native memory at {@code address}. */
    static void putString(long address, String s) {
        byte[] bytes = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        MEMORY.putByteArray(address, bytes, 0, bytes.length);
        MEMORY.putByte(address + bytes.length, (byte) 0);
    }

    /**
     * Descriptor {@code fd} of thread {@code tid}'s process as one of the daemon's (pidfd_getfd):
     * the same open file, e.g. to read a socket's queue.
     */
    static int callerDescriptor(int tid, int fd) throws Errno {
        // the thread itself when it leads its process (pidfd_open wants a leader); else its tgid
        long pidfd = LIBC.syscall(SYS_PIDFD_OPEN, tid, 0, 0, 0, 0, 0);
        if (pidfd < 0) {
            pidfd = syscall(SYS_PIDFD_OPEN, NetlinkCalls.tgid(tid), 0, 0, 0, 0);
        }
        try {
            return (int) syscall(SYS_PIDFD_GETFD, pidfd, fd, 0, 0, 0);
        } finally {
            LIBC.close((int) pidfd);
        }
    }
}
