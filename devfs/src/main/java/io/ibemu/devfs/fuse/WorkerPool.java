package io.ibemu.devfs.fuse;

import io.ibemu.kernel.Fatal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * The worker threads of a FUSE connection, grown as libfuse 2.9's {@code fuse_loop_mt} grows
 * them, with one difference: when every worker is busy, a spare starts only if none becomes
 * idle within {@link #SPARE_DELAY_MS} (a blocked device call never starves the rest). libfuse
 * starts one at once; here a worker that has just answered is often not yet counted idle when
 * the caller's next request arrives, so that rule started (and the idle limit ended) a thread
 * every few requests. A worker finding more than {@link #MAX_IDLE} idle ones ends.
 *
 * <p>Shared by {@link Session} (the direct transport and CUSE) and devfs's {@code FuseLoop}
 * (libfuse's sessions): each owns what its workers read and how they answer; this owns how many
 * there are.
 */
public final class WorkerPool<W extends WorkerPool.Worker> {

    private static final System.Logger LOG = System.getLogger(WorkerPool.class.getName());
    /** libfuse 2.9's limit of idle workers. */
    public static final int MAX_IDLE = 10;
    /** How long every worker may be busy before a spare is started. */
    private static final long SPARE_DELAY_MS = 1;

    /** A thread of a pool; busy from taking a request until its answer is ready. */
    public abstract static class Worker extends Thread {
        boolean busy; // guarded by the pool

        protected Worker(String name) {
            super(name);
            setDaemon(true);
        }
    }

    private final String name;
    private final Function<String, W> newWorker;
    private final BooleanSupplier ending;
    private final List<W> live = new ArrayList<>(); // guarded by this
    private int idle; // guarded by this
    private int started; // guarded by this: names workers
    private long finished; // guarded by this: requests answered so far

    /** {@code newWorker} makes a worker of the given name (not started); no spare starts once {@code ending}. */
    public WorkerPool(String name, Function<String, W> newWorker, BooleanSupplier ending) {
        this.name = name;
        this.newWorker = newWorker;
        this.ending = ending;
    }

    /** Starts the first worker, then spares while every worker stays busy; returns when none is left. */
    public synchronized void serve() {
        startWorker();
        while (!live.isEmpty()) {
            try {
                if (idle > 0) {
                    wait();
                } else {
                    long before = finished;
                    wait(SPARE_DELAY_MS);
                    if (idle == 0 && finished == before && !live.isEmpty() && !ending.getAsBoolean()) {
                        startSpare();
                    }
                }
            } catch (InterruptedException e) {
                // the pool ends with its workers, not with this thread's interruption
            }
        }
    }

    /** {@code worker} has read a request. */
    public synchronized void taken(W worker) {
        worker.busy = true;
        if (--idle == 0) {
            notifyAll();
        }
    }

    /** {@code worker}'s answer is ready: it counts as idle again (once per request). */
    public synchronized void answered(W worker) {
        if (worker.busy) {
            worker.busy = false;
            finished++;
            idle++;
        }
    }

    /** {@code worker} is done with its request: whether it should end, more than {@link #MAX_IDLE} being idle. */
    public synchronized boolean doneWith(W worker) {
        answered(worker);
        return idle > MAX_IDLE;
    }

    /** {@code worker}'s thread is ending. */
    public synchronized void ended(W worker) {
        if (!worker.busy) {
            idle--;
        }
        live.remove(worker);
        notifyAll();
    }

    public synchronized int size() {
        return live.size();
    }

    /** The first non-null {@code look} of a live worker, or null. */
    public synchronized <T> T first(Function<W, T> look) {
        for (W w : live) {
            T found = look.apply(w);
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    /**
     * After the owner's stop: sends {@code poke} requests, each from a thread of its own (it stays
     * blocked if no worker is left to read it), until {@code loop}, the thread in {@link #serve},
     * ends or {@code timeoutMs} pass. One worker ends per request, and up to {@link #MAX_IDLE} + 1
     * may be idle. Returns whether it ended.
     */
    public static boolean poke(String name, Runnable poke, Thread loop, long timeoutMs) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        try {
            List<Thread> pokes = new ArrayList<>();
            while (loop.isAlive() && System.nanoTime() < deadline) {
                pokes.removeIf(p -> !p.isAlive());
                if (pokes.size() < MAX_IDLE + 2) {
                    Thread p = new Thread(poke, name + "-poke");
                    p.setDaemon(true);
                    p.start();
                    pokes.add(p);
                }
                loop.join(10);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return !loop.isAlive();
    }

    /** A spare that cannot start (a thread limit) is tried again later: the busy workers still serve. */
    private void startSpare() {
        try {
            startWorker();
        } catch (OutOfMemoryError e) {
            if (!Fatal.isThreadLimit(e)) {
                throw e;
            }
            LOG.log(System.Logger.Level.WARNING, "{0}: no spare FUSE worker: {1}", name, e.getMessage());
        }
    }

    /** Caller holds the lock. */
    private void startWorker() {
        W worker = newWorker.apply(name + "-" + ++started);
        worker.start();
        live.add(worker);
        idle++;
    }
}
