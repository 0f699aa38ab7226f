package io.ibemu.devfs.device;

/** Where a {@link MessageFile} sends the messages it queues (the supervisor's socket pair). */
public interface MessageOutlet {

    /** Queues one message for the reader; false when it could not be queued (the file drops it). */
    boolean send(byte[] message);

    /** The device is gone: the reader's poll wakes and reports the end of the file. */
    void hangUp();
}
