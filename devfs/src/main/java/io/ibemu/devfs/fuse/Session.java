package io.ibemu.devfs.fuse;

import io.ibemu.kernel.Errno;
import io.ibemu.kernel.Fatal;

import java.util.Map;

/**
 * Serves one {@link Channel}: a pool of Java worker threads, each reading a request into its own
 * buffer, dispatching it by opcode to a {@link Handler} and writing the reply from its own
 * buffer. FUSE_INTERRUPT is served here: it marks the request of that unique, found among the
 * workers, as {@link Request#interrupted()}; a request not (yet) found is answered EAGAIN, which
 * makes the kernel send the interrupt again (fuse_dev_do_write, queue_interrupt). An opcode with
 * no handler is answered ENOSYS, which the kernel remembers for most.
 *
 * <p>The pool is a {@link WorkerPool} (libfuse 2.9's growth with a delayed spare). After
 * {@link #stop()} each worker ends after its next request ({@link #endWorkers} sends them), or
 * when the connection goes (read fails ENODEV).
 */
public final class Session {

    private static final System.Logger LOG = System.getLogger(Session.class.getName());
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
    private final WorkerPool<Worker> workers;
    private volatile boolean failed; // a read failed with an unexpected error

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
        this.workers = new WorkerPool<>(name, n -> new Worker(this, n, bufferSize), () -> stopping);
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
    public int serve() {
        workers.serve();
        return failed ? 1 : 0;
    }

    /** The number of workers alive. */
    public int workers() {
        return workers.size();
    }

    /**
     * After {@link #stop()}: sends requests ({@code poke}, each on a thread of its own: it stays
     * blocked if no worker is left to read it) until {@code loop}, the thread in {@link #serve},
     * ends or {@code timeoutMs} pass. Returns whether it ended.
     */
    public boolean endWorkers(Runnable poke, Thread loop, long timeoutMs) {
        return WorkerPool.poke(name, poke, loop, timeoutMs);
    }

    /** A thread of the pool with its own buffers and the request it serves. */
    static final class Worker extends WorkerPool.Worker {
        final Session session;
        final IoBuffer in;
        final IoBuffer out;
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
    void answered(Worker worker) {
        workers.answered(worker);
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
                        failed = true;
                    }
                    break;
                }
                workers.taken(worker);
                dispatch(worker, length);
                if (workers.doneWith(worker)) {
                    break;
                }
            }
        } catch (Throwable t) {
            if (!Fatal.check(t, name + " FUSE worker")) {
                LOG.log(System.Logger.Level.ERROR, name + ": FUSE worker failed", t);
            }
        } finally {
            workers.ended(worker);
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
        Request found = workers.first(w -> {
            Request r = w.current;
            return r != null && r.unique() == target ? r : null;
        });
        if (found != null) {
            found.interrupt();
            interrupt.replyNone();
        } else {
            interrupt.replyError(EAGAIN);
        }
    }
}
