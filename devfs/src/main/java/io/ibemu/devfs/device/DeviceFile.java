package io.ibemu.devfs.device;

import io.ibemu.kernel.Errno;

import java.nio.ByteBuffer;

/**
 * One open file of a {@link CharDevice}: a driver's per-file state. The FUSE layer calls these
 * from many threads at once; a call that blocks must end when {@link Caller#interrupted()}
 * turns true (then throw {@link Errno#EINTR}) and must never hold a lock other files need.
 */
public interface DeviceFile {

    /**
     * read(2) of {@code request.count()} bytes (the whole syscall's count, even when FUSE splits
     * it into several requests: the FUSE layer joins them). Return what the syscall returns.
     */
    ReadResult read(ReadRequest request) throws Errno;

    /** write(2) of the whole syscall's buffer (joined by the FUSE layer); returns the count written. */
    int write(Caller caller, ByteBuffer data, int fileFlags) throws Errno;

    /**
     * ioctl(2). {@code in} holds the {@code _IOC_SIZE(cmd)} bytes copied in when the command has
     * {@code _IOC_WRITE}, else it is empty.
     */
    IoctlResult ioctl(Caller caller, int cmd, byte[] in) throws Errno;

    /**
     * ioctl(2) with the caller's argument address too, for commands whose argument leads to more
     * of the caller's memory (RDMA_VERBS_IOCTL's attribute array follows its header there).
     */
    default IoctlResult ioctl(Caller caller, int cmd, long arg, byte[] in) throws Errno {
        return ioctl(caller, cmd, in);
    }

    /**
     * poll(2): the current event mask ({@link Poll#IN}, {@link Poll#OUT}, ...). When
     * {@code waiter} is not null the file keeps it and calls {@link PollWaiter#wake()} once
     * when the mask may have changed.
     */
    int poll(Caller caller, PollWaiter waiter);

    /** close(2) of one descriptor of this open file (FUSE FLUSH); others may still hold it. */
    default void flush() {
    }

    /**
     * Whether {@link #release()} must come at the last close(2), before it returns, rather than
     * when FUSE sends RELEASE (after close has returned, so a program that closes and at once
     * opens again would still find the file held). The FUSE layer then checks at each close
     * whether any descriptor of the file is left (a scan of /proc: meant for rare opens).
     */
    default boolean releaseAtLastClose() {
        return false;
    }

    /** The last close(2); called once. */
    void release();
}
