package io.ibemu.emulator.agent;

import io.ibemu.emulator.fabric.Fabric;
import io.ibemu.emulator.fabric.Port;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The kernel's MAD layer (drivers/infiniband/core/mad.c) for the whole emulated fabric: one
 * {@link MadPort} per port that MADs reach, the fabric-wide hi_tid table that routes responses
 * back to their agent, and the timer that expires requests. Everything here runs under
 * {@link Fabric#lock()}; the timer thread takes that lock too.
 */
public final class MadLayer implements AutoCloseable {
    /** hi_tid values live in 24 bits (mlx4 keeps the top byte for itself). */
    private static final int HI_TID_LIMIT = 1 << 24;

    private final Fabric fabric;
    private final Map<Port, MadPort> ports = new HashMap<>();
    private final Map<Integer, MadAgent> agents = new HashMap<>();
    private final ScheduledThreadPoolExecutor timer;
    private int nextHiTid = 1;
    /** Datagrams sent but not yet delivered; drained by whoever sends first. */
    private final java.util.ArrayDeque<Runnable> wire = new java.util.ArrayDeque<>();
    private boolean draining;
    private final Wire cables = new Wire(this);
    private final TrapSender traps;

    public MadLayer(Fabric fabric) {
        this.fabric = fabric;
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "mad-timer");
            t.setDaemon(true);
            return t;
        });
        // a cancelled timeout leaves the queue at once: thousands of sends in flight would
        // otherwise leave as many dead entries for the timer thread to wake up for
        executor.setRemoveOnCancelPolicy(true);
        this.timer = executor;
        this.traps = new TrapSender(this, fabric);
    }

    public Fabric fabric() {
        return fabric;
    }

    public Object lock() {
        return fabric.lock();
    }

    /** The MAD services of a port; created on first use. Call with the lock held. */
    public MadPort port(Port port) {
        return ports.computeIfAbsent(port, p -> new MadPort(this, p));
    }

    /** xa_alloc_cyclic over ib_mad_clients: the next free hi_tid. */
    int allocate(MadAgent.Factory factory) throws io.ibemu.kernel.Errno {
        for (int i = 0; i < HI_TID_LIMIT; i++) {
            int id = nextHiTid;
            nextHiTid = nextHiTid + 1 == HI_TID_LIMIT ? 1 : nextHiTid + 1;
            if (!agents.containsKey(id)) {
                agents.put(id, factory.create(id));
                return id;
            }
        }
        throw io.ibemu.kernel.Errno.of(io.ibemu.kernel.Errno.ENOMEM);
    }

    MadAgent agent(int hiTid) {
        return agents.get(hiTid);
    }

    void forget(MadAgent agent) {
        agents.remove(agent.hiTid());
    }

    ScheduledFuture<?> schedule(Runnable task, int delayMs) {
        return timer.schedule(() -> {
            synchronized (lock()) {
                task.run();
            }
        }, delayMs, TimeUnit.MILLISECONDS);
    }

    /** Puts {@code step} on the wire's queue after {@code nanos}, as a transmit is (a MAD a fault rule delays). */
    ScheduledFuture<?> later(Runnable step, long nanos) {
        return timer.schedule(() -> {
            synchronized (lock()) {
                onWire(step);
            }
        }, nanos, TimeUnit.NANOSECONDS);
    }

    /** Timeouts and repeats waiting in the timer's queue (cancelled ones leave it at once). */
    int timersQueued() {
        return timer.getQueue().size();
    }

    ScheduledFuture<?> scheduleRepeating(Runnable task, int periodMs) {
        return timer.scheduleAtFixedRate(() -> {
            synchronized (lock()) {
                task.run();
            }
        }, periodMs, periodMs, TimeUnit.MILLISECONDS);
    }

    TrapSender traps() {
        return traps;
    }

    /**
     * Puts a datagram on the wire at {@code from}: it crosses cables and switches as
     * {@link Wire} and {@link SwitchRelay} rule, and is lost where the subnet has no route for
     * it, as on a real one.
     */
    void transmit(Port from, Datagram d) {
        onWire(() -> cables.send(from, d));
    }

    private void onWire(Runnable step) {
        wire.addLast(step);
        if (draining) {
            return;
        }
        // The first sender drains the wire: a chain of answers (RMPP windows, ACKs, hops through
        // switches) runs as a loop here instead of recursing once per hop.
        draining = true;
        try {
            Runnable next;
            while ((next = wire.pollFirst()) != null) {
                next.run();
            }
        } finally {
            draining = false;
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
