package io.ibemu.devfs.device;

import io.ibemu.kernel.Errno;

/**
 * A device file whose read(2) returns one queued message whole, or fails and leaves it at the
 * head of the queue (umad's {@code ib_umad_read}). Under the launcher's supervisor such a file
 * can be carried by a socket pair: every message it queues is also sent, in order, into the
 * caller's end as one datagram, so poll and the copy of a read run in the caller's own kernel
 * calls, and the daemon only checks each read before it goes ahead ({@link #admit}).
 */
public interface MessageFile extends DeviceFile {

    /**
     * From now on every message the file queues goes to {@code outlet} too, encoded as read(2)
     * would return it whole; null ends that, and what is queued is read and polled through
     * {@link #read} and {@link #poll} again (the socket pair is given up for a FUSE file).
     */
    void divert(MessageOutlet outlet);

    /**
     * The check of a read(2) of {@code request.count()} bytes before it takes the head datagram:
     * null when the head fits (the file forgets it: the caller's read takes it), else what the
     * read returns instead while the head stays queued: an errno, or bytes for the caller's
     * buffer and then an errno. Blocks as {@link #read} does while a blocking read finds the
     * queue empty.
     */
    ReadResult admit(ReadRequest request) throws Errno;
}
