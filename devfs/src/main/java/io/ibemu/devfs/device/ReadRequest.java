package io.ibemu.devfs.device;

/** One read(2) syscall on a device file. */
public interface ReadRequest {

    Caller caller();

    /** The byte count the caller asked for in the syscall. */
    int count();

    /** O_NONBLOCK was set on the file at the time of the read. */
    boolean nonBlocking();

    /**
     * Whether the caller's buffer takes {@code length} bytes, for a read whose copy the caller's
     * own kernel call makes after the file has let go of the message; other reads say yes and
     * find a bad buffer when they copy.
     */
    default boolean takes(int length) {
        return true;
    }
}
