package io.ibemu.devfs.device;

/**
 * What a read(2) returns: bytes, or an errno, or (as umad's ENOSPC for an RMPP message too large
 * for the buffer) bytes written into the caller's buffer followed by an errno.
 */
public record ReadResult(byte[] data, int errno) {

    public static ReadResult of(byte[] data) {
        return new ReadResult(data, 0);
    }

    /** The kernel copied {@code written} into the user buffer and then failed with {@code errno}. */
    public static ReadResult writtenThenFailed(byte[] written, int errno) {
        return new ReadResult(written, errno);
    }

    public boolean failed() {
        return errno != 0;
    }
}
