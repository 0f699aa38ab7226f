package io.ibemu.devfs.supervise;

import io.ibemu.devfs.device.DeviceNode;
import io.ibemu.devfs.device.MessageFile;
import io.ibemu.devfs.device.MessageOutlet;

import java.nio.ByteBuffer;

import static io.ibemu.devfs.supervise.Syscalls.MEMORY;

/**
 * One open of a node whose file is a {@link MessageFile}, carried by a unix SOCK_SEQPACKET pair:
 * the caller holds one end at a number of the reserved range, the daemon the other. Every
 * message the file queues is a datagram in the caller's receive queue, so poll, epoll and the
 * copy of a read are the caller's own kernel calls; the filter sends read, write, ioctl and
 * fstat of the range here, where the file checks each read ({@link MessageFile#admit}) and
 * serves the rest as its FUSE file would. The last close of the caller's end hangs the pair up,
 * which {@link SocketFiles} takes for the file's release.
 */
final class SocketFile implements MessageOutlet {

    private static final int MSG_DONTWAIT = 0x40;
    private static final int MSG_NOSIGNAL = 0x4000;
    private static final int SHUT_WR = 1;
    private static final int SEND_SCRATCH = 4096;
    private static final ThreadLocal<ByteBuffer> SCRATCH = ThreadLocal.withInitial(
            () -> ByteBuffer.allocateDirect(SEND_SCRATCH));

    final DeviceNode node;
    final MessageFile file;
    /** The daemon's end of the pair. */
    final int local;
    /** The inode of the caller's end: what /proc/TID/fd/N names. */
    final long inode;
    /** The open's O_ACCMODE: a socket is always both, the device file it stands for is not. */
    private final int accessMode;
    /** What the pair's epoll entry carries ({@link SocketFiles}). */
    final long token;

    SocketFile(DeviceNode node, MessageFile file, int local, long inode, int accessMode, long token) {
        this.node = node;
        this.file = file;
        this.local = local;
        this.inode = inode;
        this.accessMode = accessMode;
        this.token = token;
    }

    int accessMode() {
        return accessMode;
    }

    /** FMODE_READ: else read is EBADF. */
    boolean readable() {
        return accessMode != Syscalls.O_WRONLY;
    }

    /** FMODE_WRITE: else write is EBADF. */
    boolean writable() {
        return accessMode != Syscalls.O_RDONLY;
    }

    /** One datagram into the caller's receive queue; never waits (the daemon's end has a large send buffer). */
    @Override
    public boolean send(byte[] message) {
        long buffer;
        long allocated = 0;
        if (message.length <= SEND_SCRATCH) {
            buffer = MEMORY.getDirectBufferAddress(SCRATCH.get());
        } else {
            allocated = MEMORY.allocateMemory(message.length, false);
            buffer = allocated;
        }
        try {
            MEMORY.putByteArray(buffer, message, 0, message.length);
            return Syscalls.LIBC.syscall(Syscalls.SYS_SENDTO, local, buffer, message.length,
                    MSG_DONTWAIT | MSG_NOSIGNAL, 0, 0) == message.length;
        } finally {
            if (allocated != 0) {
                MEMORY.freeMemory(allocated);
            }
        }
    }

    /** The caller's end reads end-of-file and polls readable: its poll wakes, its reads come here and fail. */
    @Override
    public void hangUp() {
        Syscalls.LIBC.syscall(Syscalls.SYS_SHUTDOWN, local, SHUT_WR, 0, 0, 0, 0);
    }
}
