package io.ibemu.devfs.device;

/**
 * What an ioctl(2) returns. {@code out} is copied to the caller's argument when the command
 * has {@code _IOC_READ}; with a non-zero {@code errno} it is copied as well (the kernel's
 * REGISTER_AGENT2 writes the supported flags back and still fails with EINVAL).
 */
public record IoctlResult(int value, byte[] out, int errno) {

    private static final byte[] NONE = new byte[0];

    public static IoctlResult ok() {
        return new IoctlResult(0, NONE, 0);
    }

    public static IoctlResult ok(byte[] out) {
        return new IoctlResult(0, out, 0);
    }

    public static IoctlResult failedAfterWriting(byte[] out, int errno) {
        return new IoctlResult(-1, out, errno);
    }
}
