package io.ibemu.devfs.device;

import java.nio.ByteBuffer;

/**
 * The memory of one {@link MappableFile}: what a caller's mmap of the file at an offset shows,
 * seen here at the same offset. Sparse: pages cost memory once touched, all of it returned at
 * the file's release (the last close and the last unmap in every process).
 */
public interface SharedMemory {

    /** Bytes the file can map, from offset 0. */
    long size();

    /**
     * A little-endian buffer over {@code [offset, offset + length)}: each store is at once
     * visible in the caller's mappings, and theirs here (use acquire/release accesses for order).
     */
    ByteBuffer region(long offset, int length);
}
