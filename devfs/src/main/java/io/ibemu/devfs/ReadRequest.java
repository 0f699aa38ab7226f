package io.ibemu.devfs;

/** One read(2) syscall on a device file. */
public interface ReadRequest {

    Caller caller();

    /** The byte count the caller asked for in the syscall. */
    int count();

    /** O_NONBLOCK was set on the file at the time of the read. */
    boolean nonBlocking();
}
