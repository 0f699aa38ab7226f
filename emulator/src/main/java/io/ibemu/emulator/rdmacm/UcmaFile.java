package io.ibemu.emulator.rdmacm;

import io.ibemu.devfs.device.Caller;
import io.ibemu.devfs.device.DeviceFile;
import io.ibemu.devfs.device.IoctlResult;
import io.ibemu.devfs.device.Poll;
import io.ibemu.devfs.device.PollWaiter;
import io.ibemu.devfs.device.ReadRequest;
import io.ibemu.devfs.device.ReadResult;
import io.ibemu.emulator.ipoib.NetNamespace;
import io.ibemu.kernel.CField;
import io.ibemu.kernel.Errno;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;

/**
 * One open of /dev/infiniband/rdma_cm: {@code struct ucma_file}. write() is ucma_write (header,
 * table lookup, the handler); the file's contexts and its event list live here, guarded by this
 * object's monitor (the file's {@code mut}); GET_EVENT waits on it. There is no read or ioctl
 * (ucma_fops has neither); poll is readable while an event waits; the last close destroys
 * every id the file still holds (ucma_close).
 */
final class UcmaFile implements DeviceFile {
    private static final long INTERRUPT_POLL_MS = 20;
    private static final int HDR = Ucma.CMD_HDR.size();
    private static final CField HDR_CMD = Ucma.CMD_HDR.field("cmd");
    private static final CField HDR_IN = Ucma.CMD_HDR.field("in");
    private static final CField HDR_OUT = Ucma.CMD_HDR.field("out");

    /** A queued {@code struct ucma_event}: the response bytes and the context (and id) it is for. */
    record Event(UcmaContext context, CmaId cmId, CmaEvent event, byte[] resp) {
    }

    final RdmaCmDevice device;
    private final List<UcmaContext> contexts = new ArrayList<>(); // guarded by this
    private final Deque<Event> events = new ArrayDeque<>(); // guarded by this
    private final List<PollWaiter> waiters = new ArrayList<>(); // guarded by this
    private boolean released; // guarded by this

    /** The opener's network namespace, where this file's ids look addresses up (held until release). */
    final NetNamespace net;

    UcmaFile(RdmaCmDevice device, NetNamespace net) {
        this.device = device;
        this.net = net;
    }

    @Override
    public int write(Caller caller, ByteBuffer data, int fileFlags) throws Errno {
        int len = data.remaining();
        if (len < HDR) {
            throw Errno.of(Errno.EINVAL);
        }
        byte[] buf = new byte[len];
        data.get(buf);
        long cmd = HDR_CMD.get(buf, 0);
        int in = (int) HDR_IN.get(buf, 0);
        int out = (int) HDR_OUT.get(buf, 0);
        if (cmd >= UcmaCommands.TABLE.length) {
            throw Errno.of(Errno.EINVAL);
        }
        if (in + HDR > len) {
            throw Errno.of(Errno.EINVAL);
        }
        UcmaCommand command = UcmaCommands.TABLE[(int) cmd];
        if (command == null) {
            throw Errno.of(Errno.ENOSYS);
        }
        if (out < command.responseSize()) {
            throw Errno.of(Errno.ENOSPC);
        }
        device.admit(command, caller);
        if (in < command.extensibleFrom()) {
            throw Errno.of(Errno.EINVAL);
        }
        // copy_from_user(&cmd, inbuf, sizeof(cmd)): past the write's end we see zeros, the kernel the caller's
        // memory; an extensible request reads min(in, sizeof(cmd)) and zeroes the rest
        int copied = command.extensibleFrom() > 0 ? Math.min(in, command.request().size()) : command.request().size();
        byte[] request = Arrays.copyOf(Arrays.copyOfRange(buf, HDR, HDR + copied), command.request().size());
        command.handler().run(new UcmaRequest(this, caller, command, request, out, fileFlags));
        return len;
    }

    /** ucma_alloc_ctx: a new context of this file, in the device's table and the file's list. */
    UcmaContext newContext() {
        UcmaContext c = device.contexts.allocate(this);
        synchronized (this) {
            contexts.add(c);
        }
        return c;
    }

    /**
     * ucma_event_handler: a CONNECT_REQUEST counts against the listener's backlog (refused, for
     * the CM to reject, when none is left); other events of a context whose uid is not set yet
     * (a new connection not yet accepted) are dropped.
     */
    boolean queue(UcmaContext context, CmaId cmId, CmaEvent event) {
        boolean queued = enqueue(context, cmId, event);
        if (event.type() == CmaEvent.Type.DEVICE_REMOVAL && device.contexts.holds(context)) {
            // ucma_event_handler: once the event is queued, the id is closed (ucma_close_id's work)
            context.closed = true;
            device.cm.later(0, () -> {
                cmId.destroy();
                if (context.cmId == cmId) {
                    context.cmId = null;
                }
            });
        }
        return queued;
    }

    private boolean enqueue(UcmaContext context, CmaId cmId, CmaEvent event) {
        List<PollWaiter> wake;
        synchronized (this) {
            if (released) {
                return false;
            }
            if (event.type() == CmaEvent.Type.CONNECT_REQUEST) {
                if (context.backlog <= 0) {
                    return false;
                }
                context.backlog--;
            } else if (context.uid == 0 || context.cmId != cmId) {
                if (context.held != null && context.cmId == cmId) {
                    context.held.add(event);
                }
                return true;
            }
            events.addLast(new Event(context, cmId, event, UcmaCommands.eventResponse(context, event)));
            notifyAll();
            wake = new ArrayList<>(waiters);
            waiters.clear();
        }
        wake.forEach(PollWaiter::wake);
        return true;
    }

    /**
     * ucma_accept with the handler locked: {@code accept} runs with {@code context}'s events held,
     * then the uid is set and what came meanwhile is queued behind it; if it fails they are dropped.
     */
    void accept(UcmaContext context, long uid, CmaIdAction accept) throws Errno {
        synchronized (this) {
            context.held = new ArrayList<>();
        }
        List<PollWaiter> wake;
        try {
            accept.run();
            synchronized (this) {
                context.uid = uid;
                for (CmaEvent e : context.held) {
                    events.addLast(new Event(context, context.cmId, e, UcmaCommands.eventResponse(context, e)));
                }
                notifyAll();
                wake = new ArrayList<>(waiters);
                waiters.clear();
            }
        } finally {
            synchronized (this) {
                context.held = null;
            }
        }
        wake.forEach(PollWaiter::wake);
    }

    @FunctionalInterface
    interface CmaIdAction {
        void run() throws Errno;
    }

    /**
     * ucma_get_event: waits for the first event (EAGAIN under O_NONBLOCK, EINTR once the caller is
     * interrupted); a CONNECT_REQUEST's new id gets its context here; the event leaves the list
     * only once its response was written.
     */
    void getEvent(UcmaRequest r, long response) throws Errno {
        synchronized (this) {
            boolean nonBlocking = events.isEmpty() && r.nonBlocking(); // f_flags now: read once, not per wake-up
            while (events.isEmpty()) {
                if (nonBlocking) {
                    throw Errno.of(Errno.EAGAIN);
                }
                if (r.caller().interrupted()) {
                    throw Errno.of(Errno.EINTR);
                }
                try {
                    wait(INTERRUPT_POLL_MS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw Errno.of(Errno.EINTR);
                }
            }
            Event e = events.peekFirst();
            byte[] resp = e.resp();
            UcmaContext child = null;
            if (e.event().type() == CmaEvent.Type.CONNECT_REQUEST) {
                child = device.contexts.allocate(this);
                contexts.add(child);
                child.cmId = e.event().child();
                resp = resp.clone();
                Ucma.EVENT_RESP.field("id").put(resp, 0, child.id);
            }
            try {
                r.respond(response, resp);
            } catch (Errno failed) {
                if (child != null) {
                    contexts.remove(child);
                    device.contexts.remove(child);
                }
                throw failed;
            }
            events.removeFirst();
            if (child != null) {
                e.context().backlog++;
                UcmaContext owner = child;
                child.cmId.handler((id, ev) -> queue(owner, id, ev));
            }
            e.context().eventsReported++;
            if (e.event().multicast() instanceof UcmaMulticast mc) {
                mc.eventsReported++;
            }
        }
    }

    /** ucma_cleanup_mc_events: a left join's unread events go; the count of those read is returned. */
    synchronized int forgetMulticast(UcmaMulticast mc) {
        events.removeIf(e -> e.event().multicast() == mc);
        return mc.eventsReported;
    }

    /**
     * ucma_destroy_private_ctx after rdma_destroy_id: the context leaves the file, its unread
     * events go (a pending CONNECT_REQUEST's new id is destroyed with them), and the number of
     * its events that were read is returned.
     */
    int free(UcmaContext c) {
        device.removeMulticasts(c);
        List<Event> dropped = new ArrayList<>();
        int reported;
        synchronized (this) {
            contexts.remove(c);
            events.removeIf(e -> {
                if (e.context() == c) {
                    dropped.add(e);
                    return true;
                }
                return false;
            });
            reported = c.eventsReported;
        }
        for (Event e : dropped) {
            if (e.event().child() != null) {
                e.event().child().destroy();
            }
        }
        return reported;
    }

    /** DESTROY_ID's work once the id left the table: no more events, then the context freed. */
    int destroy(UcmaContext c) {
        CmaId id = c.cmId;
        if (id != null) {
            id.destroy();
        }
        return free(c);
    }

    /**
     * ucma_migrate_id's move: the context and its unread events go to {@code target} (both
     * files locked in a fixed order, as ucma_lock_files does), and its id's events follow it.
     * Returns the number of its events read so far.
     */
    int migrate(UcmaContext c, UcmaFile target) {
        if (target == this) {
            synchronized (this) {
                return c.eventsReported;
            }
        }
        UcmaFile first = System.identityHashCode(this) <= System.identityHashCode(target) ? this : target;
        UcmaFile second = first == this ? target : this;
        List<PollWaiter> wake;
        int reported;
        synchronized (first) {
            synchronized (second) {
                contexts.remove(c);
                target.contexts.add(c);
                List<Event> moving = new ArrayList<>();
                events.removeIf(e -> e.context() == c && moving.add(e));
                target.events.addAll(moving);
                c.file = target;
                CmaId id = c.cmId;
                if (id != null) {
                    id.handler((cmId, ev) -> target.queue(c, cmId, ev));
                }
                reported = c.eventsReported;
                wake = moving.isEmpty() ? List.of() : target.takeWaiters();
                if (!moving.isEmpty()) {
                    target.notifyAll();
                }
            }
        }
        wake.forEach(PollWaiter::wake);
        return reported;
    }

    private List<PollWaiter> takeWaiters() {
        List<PollWaiter> w = new ArrayList<>(waiters);
        waiters.clear();
        return w;
    }

    /** No .read in ucma_fops: vfs_read answers EINVAL. */
    @Override
    public ReadResult read(ReadRequest request) throws Errno {
        throw Errno.of(Errno.EINVAL);
    }

    /** No .unlocked_ioctl: ENOTTY. */
    @Override
    public IoctlResult ioctl(Caller caller, int cmd, byte[] in) throws Errno {
        throw Errno.of(Errno.ENOTTY);
    }

    /** ucma_poll: EPOLLIN | EPOLLRDNORM while an event waits, else nothing. */
    @Override
    public synchronized int poll(Caller caller, PollWaiter waiter) {
        if (!events.isEmpty()) {
            return Poll.IN | Poll.RDNORM;
        }
        if (waiter != null && !waiters.contains(waiter)) {
            waiters.add(waiter);
        }
        return 0;
    }

    /** ucma_close: every context the file holds is destroyed, its id first (which sends what the CM sends). */
    @Override
    public void release() {
        List<UcmaContext> held;
        synchronized (this) {
            released = true;
            held = new ArrayList<>(contexts);
            waiters.clear();
            notifyAll();
        }
        for (UcmaContext c : held) {
            device.contexts.remove(c);
            destroy(c);
        }
        net.release();
    }
}
