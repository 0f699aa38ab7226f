package io.ibemu.emulator.uverbs;

import io.ibemu.devfs.device.Caller;
import io.ibemu.devfs.device.DeviceFile;
import io.ibemu.devfs.device.IoctlResult;
import io.ibemu.devfs.device.Poll;
import io.ibemu.devfs.device.PollWaiter;
import io.ibemu.devfs.device.ReadRequest;
import io.ibemu.devfs.device.ReadResult;
import io.ibemu.kernel.Errno;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * An "[infinibandevent]" file: a context's async event queue or a completion channel
 * ({@code struct ib_uverbs_event_queue}). read() hands out exactly one event per call
 * (ib_uverbs_event_read): it blocks while the queue is empty, EAGAIN under O_NONBLOCK, EINVAL when
 * the buffer is smaller than one event, EIO once the device is gone; poll() is readable while an
 * event is queued. Reading an event counts it on its object, which destroy responses report.
 */
final class EventFile implements DeviceFile {
    private static final long INTERRUPT_POLL_MS = 20;

    /** A queued event: its descriptor bytes and the object it is counted on (null for port events). */
    private record Event(byte[] desc, UObject<?> object, boolean completion) {
    }

    private final int eventSize;
    private final Deque<Event> queue = new ArrayDeque<>(); // guarded by this
    private final List<PollWaiter> waiters = new ArrayList<>(); // guarded by this
    private boolean closed; // guarded by this: device gone (ib_uverbs_free_hw_resources)
    private boolean released; // guarded by this: the last close of the file

    private EventFile(int eventSize) {
        this.eventSize = eventSize;
    }

    static EventFile asyncEvents() {
        return new EventFile(Abi.ASYNC_EVENT_DESC.size());
    }

    static EventFile completionChannel() {
        return new EventFile(Abi.COMP_EVENT_DESC.size());
    }

    /** ib_uverbs_comp_handler: the CQ's user_handle; dropped once nobody can read it. */
    void completion(UObject<?> cq) {
        byte[] desc = new byte[eventSize];
        Abi.COMP_EVENT_DESC.field("cq_handle").put(desc, cq.userHandle());
        queue(new Event(desc, cq, true));
    }

    /** ib_uverbs_async_handler: element is the object's user_handle, or the port number. */
    void asyncEvent(long element, int eventType, UObject<?> object) {
        byte[] desc = new byte[eventSize];
        Abi.ASYNC_EVENT_DESC.field("element").put(desc, element);
        Abi.ASYNC_EVENT_DESC.field("event_type").put(desc, eventType);
        queue(new Event(desc, object, false));
    }

    private void queue(Event e) {
        List<PollWaiter> wake;
        synchronized (this) {
            if (released || closed) {
                return;
            }
            queue.addLast(e);
            notifyAll();
            wake = takeWaiters();
        }
        wake.forEach(PollWaiter::wake);
    }

    /** An object is destroyed: its unread events go (ib_uverbs_release_ucq, ib_uverbs_release_uevent). */
    synchronized void forget(UObject<?> object) {
        queue.removeIf(e -> e.object() == object);
    }

    /** The device is gone: readers get EIO, pollers wake (uverbs disassociate). */
    void close() {
        List<PollWaiter> wake;
        synchronized (this) {
            closed = true;
            notifyAll();
            wake = takeWaiters();
        }
        wake.forEach(PollWaiter::wake);
    }

    @Override
    public ReadResult read(ReadRequest request) throws Errno {
        Event event;
        synchronized (this) {
            while (queue.isEmpty()) {
                if (closed) {
                    throw Errno.of(Errno.EIO);
                }
                if (request.nonBlocking()) {
                    throw Errno.of(Errno.EAGAIN);
                }
                if (request.caller().interrupted()) {
                    throw Errno.of(Errno.EINTR);
                }
                try {
                    wait(INTERRUPT_POLL_MS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw Errno.of(Errno.EINTR);
                }
            }
            if (request.count() < eventSize) {
                throw Errno.of(Errno.EINVAL);
            }
            event = queue.pollFirst();
        }
        if (event.object() != null) {
            if (event.completion()) {
                event.object().compEventRead();
            } else {
                event.object().asyncEventRead();
            }
        }
        return ReadResult.of(event.desc());
    }

    @Override
    public int write(Caller caller, ByteBuffer data, int fileFlags) throws Errno {
        throw Errno.of(Errno.EINVAL); // uverbs_event_fops has no write
    }

    @Override
    public IoctlResult ioctl(Caller caller, int cmd, byte[] in) throws Errno {
        throw Errno.of(Errno.ENOTTY);
    }

    @Override
    public synchronized int poll(Caller caller, PollWaiter waiter) {
        if (!queue.isEmpty()) {
            return Poll.IN | Poll.RDNORM;
        }
        if (waiter != null && !waiters.contains(waiter)) {
            waiters.add(waiter);
        }
        return 0;
    }

    @Override
    public synchronized void release() {
        released = true;
        queue.clear();
        waiters.clear();
    }

    synchronized boolean isReleased() {
        return released;
    }

    private List<PollWaiter> takeWaiters() {
        if (waiters.isEmpty()) {
            return List.of();
        }
        List<PollWaiter> wake = new ArrayList<>(waiters);
        waiters.clear();
        return wake;
    }
}
