package io.ibemu.devfs.device;

import io.ibemu.kernel.Errno;

/**
 * A character device served as one FUSE file: what a driver's {@code file_operations.open}
 * is to the kernel. Implementations know nothing of FUSE.
 */
public interface CharDevice {

    /**
     * open(2). May block (issm's second opener waits) until {@code caller.interrupted()};
     * then it throws {@link Errno#EINTR}. {@code openFlags} are the O_* flags of the open.
     */
    DeviceFile open(Caller caller, int openFlags) throws Errno;
}
