package io.ibemu.devfs.device;

import io.ibemu.kernel.Errno;

/**
 * A device file whose memory a caller maps (the driver's {@code file_operations.mmap}): the
 * supervisor gives it, once, the memory every mapping of the file shows, and asks it about each
 * mmap before the kernel maps that memory into the caller. Where no supervisor can map (CUSE,
 * a FUSE file outside the range), {@link #share} never comes and the file serves without it.
 */
public interface MappableFile extends DeviceFile {

    /** The memory behind this open file's mappings, right after open and before any other call. */
    void share(SharedMemory memory);

    /**
     * mmap(2) of {@code length} bytes at {@code offset} of the file (the generic checks already
     * passed): return to let the kernel map them, else throw the errno the driver's mmap gives.
     */
    void mmap(long offset, long length, int prot, int flags) throws Errno;
}
