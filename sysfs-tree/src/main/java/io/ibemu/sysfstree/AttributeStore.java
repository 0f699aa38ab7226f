package io.ibemu.sysfstree;

import io.ibemu.kernel.Errno;

/** What a sysfs attribute's {@code store} method is: receives the text written to the file. */
@FunctionalInterface
public interface AttributeStore {

    /** {@code value} is the written text as given, trailing newline included; Errno fails the write(2). */
    void store(String value) throws Errno;
}
