package io.ibemu.devfs.device;

/** A poll(2)/select(2) caller waiting for a device file's events to change. */
public interface PollWaiter {

    /** Tells the waiting caller to poll again. Safe to call more than once and from any thread. */
    void wake();
}
