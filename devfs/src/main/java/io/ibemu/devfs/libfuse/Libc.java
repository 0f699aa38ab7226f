package io.ibemu.devfs.libfuse;

import jnr.ffi.LibraryLoader;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;

/** The libc calls of this package: closing and detaching a mount, and the statfs that pokes a worker. */
final class Libc {

    /** Public because jnr-ffi implements it from a class loader of its own. */
    public interface Calls {
        int statfs(String path, Pointer buf);

        int umount2(String target, int flags);

        int close(int fd);
    }

    static final Calls CALLS = LibraryLoader.create(Calls.class).failImmediately().load("c");
    static final Runtime RUNTIME = Runtime.getRuntime(CALLS);

    private Libc() {
    }

    /** statfs(2) of {@code path}: the f_type, or -1. */
    static long statfs(java.nio.file.Path path) {
        Pointer buf = RUNTIME.getMemoryManager().allocateDirect(256);
        return CALLS.statfs(path.toString(), buf) == 0 ? buf.getLong(0) : -1;
    }
}
