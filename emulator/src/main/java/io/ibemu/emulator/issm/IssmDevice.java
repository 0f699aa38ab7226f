package io.ibemu.emulator.issm;

import io.ibemu.devfs.device.Caller;
import io.ibemu.devfs.device.CharDevice;
import io.ibemu.devfs.device.DeviceFile;
import io.ibemu.devfs.device.IoctlResult;
import io.ibemu.devfs.device.Poll;
import io.ibemu.devfs.device.PollWaiter;
import io.ibemu.devfs.device.ReadRequest;
import io.ibemu.devfs.device.ReadResult;
import io.ibemu.emulator.fabric.Fabric;
import io.ibemu.emulator.fabric.Port;
import io.ibemu.kernel.Errno;

import java.nio.ByteBuffer;

/**
 * /dev/infiniband/issmN (ib_umad_sm_open/close): holding it open says "an SM runs here" by
 * setting the port's IsSM capability bit. One holder at a time, as the kernel's sm_sem; the
 * file has no read, write or ioctl methods.
 */
public final class IssmDevice implements CharDevice {
    /** IB_PORT_SM: CapabilityMask bit 1, IsSM. */
    public static final int IS_SM = 1 << 1;
    private static final int O_NONBLOCK = 04000;
    private static final long INTERRUPT_POLL_MS = 20;

    private final Fabric fabric;
    private final Port port;
    private boolean held;

    public IssmDevice(Fabric fabric, Port port) {
        this.fabric = fabric;
        this.port = port;
    }

    @Override
    public DeviceFile open(Caller caller, int openFlags) throws Errno {
        acquire(caller, (openFlags & O_NONBLOCK) != 0);
        synchronized (fabric.lock()) {
            port.setCapabilityBits(IS_SM, 0);
        }
        return new Holder();
    }

    /** down_trylock under O_NONBLOCK, else down_interruptible. */
    private synchronized void acquire(Caller caller, boolean nonBlocking) throws Errno {
        while (held) {
            if (nonBlocking) {
                throw Errno.of(Errno.EAGAIN);
            }
            if (caller.interrupted()) {
                throw Errno.of(Errno.EINTR);
            }
            try {
                wait(INTERRUPT_POLL_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw Errno.of(Errno.EINTR);
            }
        }
        held = true;
    }

    private synchronized void releaseHold() {
        held = false;
        notifyAll();
    }

    private final class Holder implements DeviceFile {

        /** No .read in umad_sm_fops: vfs_read answers EINVAL. */
        @Override
        public ReadResult read(ReadRequest request) throws Errno {
            throw Errno.of(Errno.EINVAL);
        }

        @Override
        public int write(Caller caller, ByteBuffer data, int fileFlags) throws Errno {
            throw Errno.of(Errno.EINVAL);
        }

        @Override
        public IoctlResult ioctl(Caller caller, int cmd, byte[] in) throws Errno {
            throw Errno.of(Errno.ENOTTY);
        }

        /** No .poll either: DEFAULT_POLLMASK. */
        @Override
        public int poll(Caller caller, PollWaiter waiter) {
            return Poll.DEFAULT_MASK;
        }

        /** ib_umad_sm_close runs at the last close: a close and a new open at once must find the port free. */
        @Override
        public boolean releaseAtLastClose() {
            return true;
        }

        @Override
        public void release() {
            synchronized (fabric.lock()) {
                port.setCapabilityBits(0, IS_SM);
            }
            releaseHold();
        }
    }
}
