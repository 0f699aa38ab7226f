package io.ibemu.devfs;

/** How an {@link OpenFile}'s poll wake-ups reach the kernel: the FUSE_NOTIFY_POLL of a kh. */
interface PollNotice {

    /** Tells the kernel the file behind {@code handle} may have new events. */
    void notify(long handle);

    /** Frees a handle that will never be notified. */
    void destroy(long handle);

    /** True once the mount is closing: no new handle is kept. */
    boolean closing();
}
