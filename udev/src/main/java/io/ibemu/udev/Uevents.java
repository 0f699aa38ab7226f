package io.ibemu.udev;

import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The instance's uevent stream: owns the sequence numbers (the kernel's uevent_seqnum), keeps
 * the most recent events, logs each, and hands each to the listeners in SEQNUM order (the
 * rules engine will be one). Listeners run under this object's lock so that order holds;
 * they must only queue the event, never block.
 */
public final class Uevents {

    private static final System.Logger LOG = System.getLogger(Uevents.class.getName());
    /** Kept for `ctl events`; older ones are dropped. */
    private static final int KEPT = 10_000;

    private final Deque<Uevent> recent = new ArrayDeque<>(); // guarded by this
    private final List<Consumer<Uevent>> listeners = new CopyOnWriteArrayList<>();
    private final int kept;
    private long seqnum; // guarded by this

    public Uevents() {
        this(KEPT);
    }

    Uevents(int kept) {
        this.kept = kept;
    }

    /** Raises {@code action} on {@code device} with {@code extra} variables before the device's own. */
    public synchronized Uevent raise(Kobject device, UeventAction action, Map<String, String> extra) {
        Uevent event = Uevent.of(++seqnum, action, device, extra);
        recent.addLast(event);
        if (recent.size() > kept) {
            recent.removeFirst();
        }
        LOG.log(Level.INFO, "uevent {0}", event.line());
        for (Consumer<Uevent> listener : listeners) {
            listener.accept(event);
        }
        return event;
    }

    public Uevent raise(Kobject device, UeventAction action) {
        return raise(device, action, Map.of());
    }

    /** Sees every event raised from now on, in SEQNUM order. */
    public void listen(Consumer<Uevent> listener) {
        listeners.add(listener);
    }

    /** The kept events, oldest first. */
    public synchronized List<Uevent> recent() {
        return new ArrayList<>(recent);
    }
}
