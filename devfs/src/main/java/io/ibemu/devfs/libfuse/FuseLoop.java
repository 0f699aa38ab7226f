package io.ibemu.devfs.libfuse;

import io.ibemu.devfs.fuse.WorkerPool;
import io.ibemu.kernel.Fatal;

import com.kenai.jffi.MemoryIO;

/**
 * libfuse2's multithreaded session loop ({@code fuse_main}'s {@code fuse_loop_mt}), run on Java
 * threads. libfuse's own workers are native threads: jffi attaches such a thread to the JVM
 * for each callback and detaches it afterwards, which cost more than the whole FUSE round
 * trip. A Java worker is attached for its whole life, so a callback is a plain JNI upcall.
 *
 * <p>The pool is a {@link WorkerPool}, as the device files' FUSE session's. After
 * {@code fuse_exit} each worker ends once a request wakes it ({@link LowLevelMount} sends them);
 * unmounting ends them all. Only the sysfs tree runs on libfuse2 now, through its low-level API.
 */
final class FuseLoop {

    private static final System.Logger LOG = System.getLogger(FuseLoop.class.getName());
    private static final int EINTR = 4;
    private static final MemoryIO MEMORY = MemoryIO.getInstance();

    private final String name;
    private final long session;
    private final long channel;
    private final int bufferSize;
    private final WorkerPool<Worker> workers;
    private volatile boolean failed; // a receive failed with an error

    private FuseLoop(String name, long session, long channel, int bufferSize) {
        this.name = name;
        this.session = session;
        this.channel = channel;
        this.bufferSize = bufferSize;
        this.workers = new WorkerPool<>(name, n -> new Worker(this, n), () -> Fuse2.LIB.fuse_session_exited(session) != 0);
    }

    /**
     * Serves a low-level session already mounted on {@code channel} (see {@link LowLevelMount})
     * until it ends; the caller tears the session down. Returns 0, or 1 when reading failed.
     */
    static int serve(String name, long session, long channel) {
        return new FuseLoop(name, session, channel, (int) Fuse2.LIB.fuse_chan_bufsize(channel)).serve();
    }

    /**
     * Ends the workers of a loop whose session has been told to exit: fuse_exit only flags the
     * session and each idle worker notices after its next request, so each poke sends one
     * (statfs on {@code target}, never cached) from a thread of its own, until {@code loop}
     * ends or {@code timeoutMs} pass. libfuse drops a request read after the exit unanswered,
     * so pokes stay blocked until the last worker is gone and the loop closes /dev/fuse, which
     * aborts the connection and fails them. Returns whether the loop ended.
     */
    static boolean endWorkers(String name, Thread loop, java.nio.file.Path target, long timeoutMs) {
        return WorkerPool.poke(name, () -> Libc.statfs(target), loop, timeoutMs);
    }

    /** Serves until no worker is left. */
    private int serve() {
        workers.serve();
        return failed ? 1 : 0;
    }

    /** A thread of the pool, with the ioctl flag its replies read. */
    private static final class Worker extends WorkerPool.Worker {
        final FuseLoop loop;

        Worker(FuseLoop loop, String name) {
            super(name);
            this.loop = loop;
        }

        @Override
        public void run() {
            loop.work(this);
        }
    }

    /**
     * Called by a callback with its answer ready: the worker counts as idle before libfuse sends
     * the reply, since the woken caller often preempts it right there and asks again at once.
     */
    static void answered() {
        if (Thread.currentThread() instanceof Worker worker) {
            worker.loop.workers.answered(worker);
        }
    }

    private void work(Worker worker) {
        long buffer = MEMORY.allocateMemory(bufferSize, false);
        long channelCell = MEMORY.allocateMemory(8, true);
        try {
            while (Fuse2.LIB.fuse_session_exited(session) == 0) {
                MEMORY.putAddress(channelCell, channel);
                int length = Fuse2.LIB.fuse_chan_recv(channelCell, buffer, bufferSize);
                if (length == -EINTR) {
                    continue;
                }
                if (length <= 0) {
                    if (length < 0) {
                        LOG.log(System.Logger.Level.ERROR, "{0}: reading /dev/fuse failed: errno {1}", name,
                                -length);
                        Fuse2.LIB.fuse_session_exit(session);
                        failed = true;
                    }
                    break;
                }
                workers.taken(worker);
                Fuse2.LIB.fuse_session_process(session, buffer, length, MEMORY.getAddress(channelCell));
                if (workers.doneWith(worker)) {
                    break;
                }
            }
        } catch (Throwable t) {
            if (!Fatal.check(t, name + " FUSE worker")) {
                LOG.log(System.Logger.Level.ERROR, name + ": FUSE worker failed", t);
            }
        } finally {
            MEMORY.freeMemory(channelCell);
            MEMORY.freeMemory(buffer);
            workers.ended(worker);
        }
    }
}
