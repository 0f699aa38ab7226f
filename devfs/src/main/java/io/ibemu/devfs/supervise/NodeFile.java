package io.ibemu.devfs.supervise;

import io.ibemu.devfs.device.Caller;
import io.ibemu.devfs.device.DeviceFile;
import io.ibemu.devfs.device.DeviceNode;
import io.ibemu.devfs.device.IoctlResult;
import io.ibemu.devfs.device.PollWaiter;
import io.ibemu.devfs.device.ReadRequest;
import io.ibemu.devfs.device.ReadResult;
import io.ibemu.kernel.Errno;

import java.nio.ByteBuffer;
import java.util.Map;

/**
 * One open of a supervised {@link DeviceNode}: the device's file, known to the supervisor by the
 * inode of the FUSE file (or the memfd) that carries it, until its release (the last close in any process).
 */
final class NodeFile implements DeviceFile {

    final DeviceNode node;
    final DeviceFile file;
    /** The open's flags; O_NONBLOCK set later with fcntl is not seen by supervised writes. */
    final int flags;
    /** Carried by a memfd of the daemon's ({@link MappedFiles}), not by a FUSE file. */
    final boolean mapped;
    private final Map<Long, NodeFile> registry;
    private final DescriptorCache<Object> descriptors;
    private volatile long inode = -1;

    NodeFile(DeviceNode node, DeviceFile file, int flags, Map<Long, NodeFile> registry, DescriptorCache<Object> descriptors) {
        this(node, file, flags, registry, descriptors, false);
    }

    NodeFile(DeviceNode node, DeviceFile file, int flags, Map<Long, NodeFile> registry, DescriptorCache<Object> descriptors,
            boolean mapped) {
        this.mapped = mapped;
        this.node = node;
        this.file = file;
        this.flags = flags;
        this.registry = registry;
        this.descriptors = descriptors;
    }

    void register(long ino) {
        inode = ino;
        registry.put(ino, this);
    }

    @Override
    public ReadResult read(ReadRequest request) throws Errno {
        return file.read(request);
    }

    @Override
    public int write(Caller caller, ByteBuffer data, int fileFlags) throws Errno {
        return file.write(caller, data, fileFlags);
    }

    @Override
    public IoctlResult ioctl(Caller caller, int cmd, byte[] in) throws Errno {
        return file.ioctl(caller, cmd, in);
    }

    @Override
    public IoctlResult ioctl(Caller caller, int cmd, long arg, byte[] in) throws Errno {
        return file.ioctl(caller, cmd, arg, in);
    }

    @Override
    public int poll(Caller caller, PollWaiter waiter) {
        return file.poll(caller, waiter);
    }

    /** A descriptor of this file closed somewhere: the (tid, fd) answers naming it go. */
    @Override
    public void flush() {
        descriptors.closed(this);
        file.flush();
    }

    @Override
    public void release() {
        descriptors.closed(this);
        registry.remove(inode, this);
        file.release();
    }
}
