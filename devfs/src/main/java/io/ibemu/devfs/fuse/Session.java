package io.ibemu.devfs.fuse;

import io.ibemu.devfs.Errno;
import io.ibemu.devfs.Fatal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Serves one {@link Channel}: a pool of Java worker threads, each reading a request into its own
 * buffer, dispatching it by opcode to a {@link Handler} and writing the reply from its own
 * buffer. FUSE_INTERRUPT is served here: it marks the request of that unique, found among the
 * workers, as {@link Request#interrupted()}; a request not (yet) found is answered EAGAIN, which
 * makes the kernel send the interrupt again (fuse_dev_do_write, queue_interrupt). An opcode with
 * no handler is answered ENOSYS, which the kernel remembers for most.
 *
 * <p>The pool grows as FuseLoop's (libfuse 2.9's fuse_loop_mt with a delayed spare): when every
 * worker stays busy for {@link #SPARE_DELAY_MS}, a spare starts; a worker finding more than
 * {@link #MAX_IDLE} idle ones ends. After {@link #stop()} each worker ends after its next
 * request ({@link #endWorkers} sends them), or when the connection goes (read fails ENODEV).
 */
public final class Session {

    private static final System.Logger LOG = System.getLogger(Session.class.getName());
    /** libfuse 2.9's limit of idle workers. */
    static final int MAX_IDLE = 10;
    /** How long every worker may be busy before a spare is started. */
    private static final long SPARE_DELAY_MS = 1;
    /** Room for the in-header and the largest request header before a WRITE's data. */
    private static final int HEADROOM = 4096;
    private static final int EAGAIN = 11;

    /** Serves one opcode; replies through {@link Request#reply} or {@link Request#replyError}, or throws. */
    @FunctionalInterface
    public interface Handler {
        void handle(Request request) throws Errno;
    }

    private final String name;
    private final Channel channel;
    private final Handler[] handlers;
    private final int bufferSize;
    private volatile boolean stopping;
    private final List<Worker> live = new ArrayList<>(); // guarded by this
    private int idle; // guarded by this
    private int started; // guarded by this: names workers
    private long finished; // guarded by this: requests answered so far
    private boolean failed; // guarded by this: a read failed with an unexpected error

    /**
     * {@code handlers} by opcode; {@code maxWrite} is the largest WRITE payload the kernel may send
     * (INIT's max_write), which sizes each worker's buffers.
     */
    public Session(String name, Channel channel, Map<Integer, Handler> handlers, int maxWrite) {
        this.name = name;
        this.channel = channel;
        int highest = handlers.keySet().stream().mapToInt(Integer::intValue).max().orElse(0);
        if (highest > Opcode.MAX || handlers.containsKey(Opcode.INTERRUPT)) {
            throw new IllegalArgumentException("bad handler table: " + handlers.keySet());
        }
        this.handlers = new Handler[highest + 1];
        handlers.forEach((opcode, handler) -> this.handlers[opcode] = handler);
        this.bufferSize = maxWrite + HEADROOM;
    }

    public Channel channel() {
        return channel;
    }

    public boolean stopping() {
        return stopping;
    }

    /** From now on every request counts as interrupted and each worker ends after its next one. */
    public void stop() {
        stopping = true;
    }

    /** Serves until no worker is left (after {@link #stop()}, or once the connection is gone). Returns 0, or 1 when a read failed. */
    public synchronized int serve() {
        startWorker();
        while (!live.isEmpty()) {
            try {
                if (idle > 0) {
                    wait();
                } else {
                    long before = finished;
                    wait(SPARE_DELAY_MS);
                    if (idle == 0 && finished == before && !live.isEmpty() && !stopping) {
                        startSpare();
                    }
                }
            } catch (InterruptedException e) {
                // the loop ends with the connection, not with this thread's interruption
            }
        }
        return failed ? 1 : 0;
    }

    /** The number of workers alive. */
    public synchronized int workers() {
        return live.size();
    }

    /**
     * After {@link #stop()}: sends requests ({@code poke}, each on a thread of its own: it stays
     * blocked if no worker is left to read it) until {@code loop}, the thread in {@link #serve},
     * ends or {@code timeoutMs} pass. Returns whether it ended.
     */
    public boolean endWorkers(Runnable poke, Thread loop, long timeoutMs) {
        return poke(name, poke, loop, timeoutMs);
    }

    /**
     * Sends {@code poke} requests, each from a thread of its own, until {@code loop} ends or
     * {@code timeoutMs} pass: one worker ends per request after a stop, and up to
     * {@link #MAX_IDLE} + 1 may be idle. Shared with libfuse's loop ({@code FuseLoop}).
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
        Worker worker = new Worker(this, name + "-" + ++started, bufferSize);
        worker.setDaemon(true);
        worker.start();
        live.add(worker);
        idle++;
    }

    /** A thread of the pool with its own buffers; {@code busy} from reading a request until its answer is ready. */
    static final class Worker extends Thread {
        final Session session;
        final IoBuffer in;
        final IoBuffer out;
        boolean busy; // guarded by session
        volatile Request current;

        Worker(Session session, String name, int bufferSize) {
            super(name);
            this.session = session;
            this.in = IoBuffer.allocate(bufferSize);
            this.out = IoBuffer.allocate(bufferSize);
        }

        @Override
        public void run() {
            session.work(this);
        }
    }

    /** The worker's answer is ready: it counts as idle again. */
    synchronized void answered(Worker worker) {
        if (worker.busy) {
            worker.busy = false;
            finished++;
            idle++;
        }
    }

    void sent(int result, Request request) {
        // ENOENT: the request was interrupted and the kernel no longer waits for it
        if (result < 0 && result != -Channel.ENOENT && result != -Channel.ENODEV) {
            LOG.log(System.Logger.Level.WARNING, "{0}: reply to opcode {1} failed: errno {2}", name,
                    request.opcode(), -result);
        }
    }

    private void work(Worker worker) {
        try {
            while (!stopping) {
                int length = channel.receive(worker.in);
                if (length == -Channel.EINTR || length == -EAGAIN) {
                    continue;
                }
                if (length < 0) {
                    if (length != -Channel.ENODEV) { // ENODEV: unmounted or aborted, the normal end
                        LOG.log(System.Logger.Level.ERROR, "{0}: reading the FUSE channel failed: errno {1}", name,
                                -length);
                        synchronized (this) {
                            failed = true;
                        }
                    }
                    break;
                }
                synchronized (this) {
                    worker.busy = true;
                    if (--idle == 0) {
                        notifyAll();
                    }
                }
                dispatch(worker, length);
                synchronized (this) {
                    answered(worker);
                    if (idle > MAX_IDLE) {
                        break;
                    }
                }
            }
        } catch (Throwable t) {
            if (!Fatal.check(t, name + " FUSE worker")) {
                LOG.log(System.Logger.Level.ERROR, name + ": FUSE worker failed", t);
            }
        } finally {
            synchronized (this) {
                if (!worker.busy) {
                    idle--;
                }
                live.remove(worker);
                notifyAll();
            }
            worker.in.free();
            worker.out.free();
        }
    }

    private void dispatch(Worker worker, int length) {
        if (length < FuseIn.Header.SIZE) {
            LOG.log(System.Logger.Level.ERROR, "{0}: short request of {1} bytes", name, length);
            return;
        }
        Request request = new Request(worker, FuseIn.Header.decode(worker.in.bytes, 0));
        int opcode = request.opcode();
        if (opcode == Opcode.INTERRUPT) {
            interrupt(request);
            return;
        }
        Handler handler = opcode >= 0 && opcode < handlers.length ? handlers[opcode] : null;
        if (handler == null) {
            if (opcode == Opcode.FORGET || opcode == Opcode.BATCH_FORGET) {
                request.replyNone(); // the kernel waits for no answer
            } else {
                request.replyError(Errno.ENOSYS);
            }
            return;
        }
        worker.current = request;
        try {
            handler.handle(request);
        } catch (Errno e) {
            if (!request.answered()) {
                request.replyError(e.code());
            }
        } catch (Throwable t) {
            if (!Fatal.check(t, name + " opcode " + opcode)) { // an Error stops the daemon: it would not log anyway
                LOG.log(System.Logger.Level.ERROR, name + ": opcode " + opcode + " failed", t);
            }
            if (!request.answered()) {
                request.replyError(Errno.EIO);
            }
        } finally {
            worker.current = null;
        }
        if (!request.answered()) {
            LOG.log(System.Logger.Level.ERROR, "{0}: opcode {1} left unanswered", name, opcode);
            request.replyError(Errno.EIO);
        }
    }

    /** FUSE_INTERRUPT: never answered when the request is found (fuse_dev_do_write takes no reply then). */
    private void interrupt(Request interrupt) {
        long target = FuseIn.Interrupt.decode(interrupt.in(), Request.BODY).unique();
        Request found = null;
        synchronized (this) {
            for (Worker w : live) {
                Request r = w.current;
                if (r != null && r.unique() == target) {
                    found = r;
                    break;
                }
            }
        }
        if (found != null) {
            found.interrupt();
            interrupt.replyNone();
        } else {
            interrupt.replyError(EAGAIN);
        }
    }
}
