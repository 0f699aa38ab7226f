package io.ibemu.devfs;

import jnr.ffi.LibraryLoader;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;

/** The libc calls of this package; pointers to native memory travel as addresses in longs. */
final class Libc {

    /** Public because jnr-ffi implements it from a class loader of its own. */
    public interface Calls {
        /** The raw syscall: glibc's process_vm_readv called through jnr-ffi fails with EINVAL here. */
        long syscall(long number, long a, long b, long c, long d, long e, long f);

        int statfs(String path, Pointer buf);

        int umount2(String target, int flags);

        int open(String path, int flags);

        int close(int fd);

        /** Takes the iovec array's address: a FUSE reply as libfuse built it. */
        long writev(int fd, long iov, int count);
    }

    private static final boolean AARCH64 = "aarch64".equals(System.getProperty("os.arch"));
    private static final long SYS_PROCESS_VM_READV = AARCH64 ? 270 : 310;
    private static final long SYS_PROCESS_VM_WRITEV = AARCH64 ? 271 : 311;

    static final Calls CALLS = LibraryLoader.create(Calls.class).failImmediately().load("c");
    static final Runtime RUNTIME = Runtime.getRuntime(CALLS);

    private Libc() {
    }

    static long processVmReadv(int pid, long localIov, long localCount, long remoteIov, long remoteCount) {
        return CALLS.syscall(SYS_PROCESS_VM_READV, pid, localIov, localCount, remoteIov, remoteCount, 0);
    }

    static long processVmWritev(int pid, long localIov, long localCount, long remoteIov, long remoteCount) {
        return CALLS.syscall(SYS_PROCESS_VM_WRITEV, pid, localIov, localCount, remoteIov, remoteCount, 0);
    }

    static int errno() {
        return RUNTIME.getLastError();
    }
}
