package io.ibemu.sysfstree;

import io.ibemu.kernel.Errno;

/** A sysfs {@code store} method that takes the written bytes exactly, as the kernel's does. */
@FunctionalInterface
public interface ByteStore {

    /** {@code value} is what write(2) passed, trailing newline included; Errno fails the write. */
    void store(byte[] value) throws Errno;
}
