package io.ibemu.devfs;

import io.ibemu.devfs.device.Caller;
import io.ibemu.devfs.device.CharDevice;
import io.ibemu.devfs.device.DeviceFile;
import io.ibemu.devfs.device.IoctlResult;
import io.ibemu.devfs.device.Poll;
import io.ibemu.devfs.device.PollWaiter;
import io.ibemu.devfs.device.ReadRequest;
import io.ibemu.devfs.device.ReadResult;
import io.ibemu.kernel.Errno;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A toy character device: every write queues one message, every read takes one (blocking until
 * there is one, EAGAIN under O_NONBLOCK, ENOSPC after writing the start of a message too large
 * for the buffer, as umad does). A few ioctls exercise each direction.
 */
final class QueueDevice implements CharDevice {

    static final int ECHO = Posix.ioc(3, 'q', 1, 16);      // _IOWR: every byte + 1
    static final int COUNT = Posix.ioc(2, 'q', 2, 4);      // _IOR: queued messages
    static final int LIMIT = Posix.ioc(1, 'q', 3, 4);      // _IOW: refuse writes larger than this
    static final int FAIL = Posix.ioc(3, 'q', 4, 8);       // _IOWR: writes the bytes reversed, then EINVAL
    static final int TOUCH = Posix.ioc(1, 'q', 5, 16);     // _IOW {u64 addr, u32 len}: caller's bytes + 1
    static final int NOTHING = Posix.ioc(0, 'q', 6, 0);    // _IO: returns 7
    static final int BROKEN = Posix.ioc(0, 'q', 7, 0);     // _IO (or any direction): the device throws

    private final ArrayDeque<byte[]> queue = new ArrayDeque<>(); // guarded by this
    private final List<PollWaiter> waiters = new ArrayList<>(); // guarded by this
    final List<Integer> writeSizes = new CopyOnWriteArrayList<>();
    final List<Integer> readCounts = new CopyOnWriteArrayList<>();
    final AtomicInteger opens = new AtomicInteger();
    final AtomicInteger releases = new AtomicInteger();
    final AtomicInteger blockedReaders = new AtomicInteger();
    private volatile int limit = Integer.MAX_VALUE;

    @Override
    public DeviceFile open(Caller caller, int openFlags) {
        opens.incrementAndGet();
        return new File();
    }

    void put(byte[] message) {
        List<PollWaiter> woken;
        synchronized (this) {
            queue.add(message);
            notifyAll();
            woken = List.copyOf(waiters);
            waiters.clear();
        }
        woken.forEach(PollWaiter::wake);
    }

    private final class File implements DeviceFile {

        @Override
        public ReadResult read(ReadRequest request) throws Errno {
            readCounts.add(request.count());
            byte[] message = take(request);
            if (message.length > request.count()) {
                byte[] start = new byte[request.count()];
                System.arraycopy(message, 0, start, 0, start.length);
                return ReadResult.writtenThenFailed(start, Errno.ENOSPC);
            }
            return ReadResult.of(message);
        }

        private byte[] take(ReadRequest request) throws Errno {
            synchronized (QueueDevice.this) {
                if (queue.isEmpty() && request.nonBlocking()) {
                    throw Errno.of(Errno.EAGAIN);
                }
                blockedReaders.incrementAndGet();
                try {
                    while (queue.isEmpty()) {
                        if (request.caller().interrupted()) {
                            throw Errno.of(Errno.EINTR);
                        }
                        try {
                            QueueDevice.this.wait(5);
                        } catch (InterruptedException e) {
                            throw Errno.of(Errno.EINTR);
                        }
                    }
                    return queue.poll();
                } finally {
                    blockedReaders.decrementAndGet();
                }
            }
        }

        @Override
        public int write(Caller caller, ByteBuffer data, int fileFlags) throws Errno {
            int size = data.remaining();
            if (size > limit) {
                throw Errno.of(Errno.EINVAL);
            }
            writeSizes.add(size);
            byte[] message = new byte[size];
            data.get(message);
            put(message);
            return size;
        }

        @Override
        public IoctlResult ioctl(Caller caller, int cmd, byte[] in) throws Errno {
            if (cmd == ECHO) {
                byte[] out = in.clone();
                for (int i = 0; i < out.length; i++) {
                    out[i]++;
                }
                return IoctlResult.ok(out);
            } else if (cmd == COUNT) {
                int n;
                synchronized (QueueDevice.this) {
                    n = queue.size();
                }
                return IoctlResult.ok(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(n).array());
            } else if (cmd == LIMIT) {
                limit = ByteBuffer.wrap(in).order(ByteOrder.LITTLE_ENDIAN).getInt();
                return IoctlResult.ok();
            } else if (cmd == FAIL) {
                byte[] out = new byte[in.length];
                for (int i = 0; i < in.length; i++) {
                    out[i] = in[in.length - 1 - i];
                }
                return IoctlResult.failedAfterWriting(out, Errno.EINVAL);
            } else if (cmd == TOUCH) {
                ByteBuffer args = ByteBuffer.wrap(in).order(ByteOrder.LITTLE_ENDIAN);
                long address = args.getLong();
                int length = args.getInt();
                byte[] bytes = caller.readMemory(address, length);
                for (int i = 0; i < bytes.length; i++) {
                    bytes[i]++;
                }
                caller.writeMemory(address, bytes);
                return IoctlResult.ok();
            } else if ((cmd & 0xffff) == (BROKEN & 0xffff)) { // in any direction and size
                throw new IllegalStateException("a device bug");
            } else if (cmd == NOTHING) {
                return new IoctlResult(7, new byte[0], 0);
            }
            throw Errno.of(Errno.ENOTTY);
        }

        @Override
        public int poll(Caller caller, PollWaiter waiter) {
            synchronized (QueueDevice.this) {
                if (queue.isEmpty() && waiter != null) {
                    waiters.add(waiter);
                }
                return Poll.OUT | (queue.isEmpty() ? 0 : Poll.IN);
            }
        }

        @Override
        public void release() {
            releases.incrementAndGet();
        }
    }
}
