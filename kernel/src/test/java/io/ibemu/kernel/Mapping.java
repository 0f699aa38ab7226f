package io.ibemu.kernel;

import jnr.ffi.LibraryLoader;
import jnr.ffi.Pointer;

/** The libc calls the memory tests need: anonymous pages of this process to point process_vm_* at. */
final class Mapping {

    /** Public because jnr-ffi implements it from a class loader of its own. */
    public interface Libc {
        Pointer mmap(Pointer addr, long length, int prot, int flags, int fd, long offset);

        int munmap(Pointer addr, long length);

        int mprotect(Pointer addr, long length, int prot);

        int getpid();
    }

    static final Libc LIBC = LibraryLoader.create(Libc.class).load("c");
    static final int PROT_READ_WRITE = 3;
    static final int MAP_PRIVATE_ANONYMOUS = 0x22;

    private Mapping() {
    }
}
