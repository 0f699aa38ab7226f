package io.ibemu.devfs;

/** The thread that made the current request, as FUSE tells it. */
public interface Caller {

    /** The calling thread's id (FUSE reports the kernel task id, a tid). */
    int tid();

    int uid();

    int gid();

    /** True once the caller got a signal while this request was pending (libfuse's fuse_interrupted). */
    boolean interrupted();

    /**
     * Copies {@code data} into the caller's memory at {@code address} (process_vm_writev).
     * For replies the kernel writes into user memory and still fails.
     */
    void writeMemory(long address, byte[] data) throws Errno;

    /** Reads {@code length} bytes of the caller's memory at {@code address} (process_vm_readv). */
    byte[] readMemory(long address, int length) throws Errno;
}
