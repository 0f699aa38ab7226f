package io.ibemu.devfs.supervise;

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
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A toy command device in the manner of uverbs: each write is {u32 cmd, u32 pad, u64 response,
 * payload}. ECHO writes payload+1 to response; NEW_FD installs an event file in the caller and
 * writes its number; EVENT queues a u32 on every event file; WHO writes the caller's tid and uid.
 */
final class CommandDevice implements CharDevice {

    static final int ECHO = 1;
    static final int NEW_FD = 2;
    static final int EVENT = 3;
    static final int WHO = 4;
    private static final int O_CLOEXEC = 02000000;

    final AtomicInteger opens = new AtomicInteger();
    final AtomicInteger releases = new AtomicInteger();
    final AtomicInteger eventReleases = new AtomicInteger();
    private final List<EventFile> events = new CopyOnWriteArrayList<>();

    @Override
    public DeviceFile open(Caller caller, int openFlags) {
        opens.incrementAndGet();
        return new CommandFile();
    }

    private final class CommandFile implements DeviceFile {
        @Override
        public ReadResult read(ReadRequest request) throws Errno {
            throw Errno.of(Errno.EINVAL);
        }

        @Override
        public int write(Caller caller, ByteBuffer data, int fileFlags) throws Errno {
            int count = data.remaining();
            ByteBuffer in = data.slice().order(ByteOrder.LITTLE_ENDIAN);
            if (count < 16) {
                throw Errno.of(Errno.EINVAL);
            }
            int cmd = in.getInt(0);
            long response = in.getLong(8);
            byte[] payload = new byte[count - 16];
            in.get(16, payload);
            switch (cmd) {
                case ECHO -> {
                    for (int i = 0; i < payload.length; i++) {
                        payload[i]++;
                    }
                    caller.writeMemory(response, payload);
                }
                case NEW_FD -> {
                    EventFile file = new EventFile();
                    events.add(file);
                    int fd = caller.installFile(file, O_CLOEXEC);
                    caller.writeMemory(response, le(fd));
                }
                case EVENT -> events.forEach(e -> e.put(ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN).getInt()));
                case WHO -> {
                    byte[] who = new byte[8];
                    System.arraycopy(le(caller.tid()), 0, who, 0, 4);
                    System.arraycopy(le(caller.uid()), 0, who, 4, 4);
                    caller.writeMemory(response, who);
                }
                default -> throw Errno.of(Errno.EINVAL);
            }
            return count;
        }

        @Override
        public IoctlResult ioctl(Caller caller, int cmd, byte[] in) throws Errno {
            throw Errno.of(Errno.ENOTTY);
        }

        @Override
        public int poll(Caller caller, PollWaiter waiter) {
            return Poll.OUT;
        }

        @Override
        public void release() {
            releases.incrementAndGet();
        }
    }

    /** What uverbs' async and completion-channel files are: blocking reads of queued events. */
    private final class EventFile implements DeviceFile {
        private final ArrayDeque<Integer> queue = new ArrayDeque<>(); // guarded by this
        private PollWaiter waiter; // guarded by this

        void put(int value) {
            PollWaiter woken;
            synchronized (this) {
                queue.add(value);
                notifyAll();
                woken = waiter;
                waiter = null;
            }
            if (woken != null) {
                woken.wake();
            }
        }

        @Override
        public synchronized ReadResult read(ReadRequest request) throws Errno {
            while (queue.isEmpty()) {
                if (request.nonBlocking()) {
                    throw Errno.of(Errno.EAGAIN);
                }
                if (request.caller().interrupted()) {
                    throw Errno.of(Errno.EINTR);
                }
                try {
                    wait(5);
                } catch (InterruptedException e) {
                    throw Errno.of(Errno.EINTR);
                }
            }
            return ReadResult.of(le(queue.poll()));
        }

        @Override
        public int write(Caller caller, ByteBuffer data, int fileFlags) throws Errno {
            throw Errno.of(Errno.EINVAL);
        }

        @Override
        public IoctlResult ioctl(Caller caller, int cmd, byte[] in) throws Errno {
            throw Errno.of(Errno.ENOTTY);
        }

        @Override
        public synchronized int poll(Caller caller, PollWaiter w) {
            if (queue.isEmpty() && w != null) {
                waiter = w;
            }
            return queue.isEmpty() ? 0 : Poll.IN;
        }

        @Override
        public void release() {
            events.remove(this);
            eventReleases.incrementAndGet();
        }
    }

    private static byte[] le(int value) {
        return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(value).array();
    }
}
