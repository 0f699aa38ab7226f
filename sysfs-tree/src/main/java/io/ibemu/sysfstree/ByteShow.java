package io.ibemu.sysfstree;

import io.ibemu.kernel.Errno;

/** A sysfs {@code show} method that may fail with an errno, as the kernel's may (e.g. EINVAL, EOPNOTSUPP). */
@FunctionalInterface
public interface ByteShow {

    /** The value's bytes; Errno fails the read(2) with that code. */
    byte[] show() throws Errno;
}
