package io.ibemu.kernel;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The process-wide "cannot serve any more" path. A heap that ran out, a class whose initialiser
 * failed, a FUSE loop that ended by itself: after any of them the daemon would answer some
 * requests and hang or fail others (issue 10 saw logging broken for good, then every FUSE worker
 * gone), so it stops whole instead. {@link #raise} runs the registered stop once, on a thread
 * started in advance (one cannot count on starting a thread then), with a reserve of heap
 * released first, and halts the JVM when it returns or after a deadline.
 */
public final class Fatal {
    /** Exit status of a daemon stopped by {@link #raise} (EX_SOFTWARE). */
    public static final int EXIT_STATUS = 70;

    private static final AtomicReference<String> REASON = new AtomicReference<>();
    private static final CountDownLatch RAISED = new CountDownLatch(1);
    private static volatile byte[] reserve;
    private static volatile Consumer<String> stop;

    private Fatal() {
    }

    /**
     * Installs {@code stopWhole} (given the reason; unmount, answer what is pending, record the
     * failure) and the threads that will run it, and keeps {@code reserveBytes} of heap for it.
     * After {@code deadlineMs} the JVM halts even if the stop has not returned.
     */
    public static synchronized void install(Consumer<String> stopWhole, int reserveBytes, long deadlineMs) {
        if (stop != null) {
            throw new IllegalStateException("a fatal-error stop is installed already");
        }
        stop = stopWhole;
        reserve = new byte[reserveBytes];
        Thread runner = new Thread(() -> {
            awaitRaised();
            reserve = null;
            try {
                stop.accept(REASON.get());
            } catch (Throwable t) {
                emergency("ibemu: the stop after a fatal error failed too: " + t);
            }
            Runtime.getRuntime().halt(EXIT_STATUS);
        }, "fatal-stop");
        Thread watchdog = new Thread(() -> {
            awaitRaised();
            try {
                Thread.sleep(deadlineMs);
            } catch (InterruptedException ignored) {
                // halt now
            }
            emergency("ibemu: the stop after a fatal error did not end in " + deadlineMs + " ms; halting");
            Runtime.getRuntime().halt(EXIT_STATUS);
        }, "fatal-watchdog");
        for (Thread t : new Thread[] {runner, watchdog}) {
            t.setDaemon(true);
            t.start();
        }
        Thread.setDefaultUncaughtExceptionHandler((thread, t) -> {
            if (!check(t, "thread " + thread.getName())) {
                emergency("ibemu: uncaught in thread " + thread.getName() + ": " + t);
            }
        });
    }

    /**
     * Whether {@code t} means the daemon cannot go on serving: every {@link Error} except a
     * thread that could not be started (a transient limit its caller copes with). Raises it if so.
     */
    public static boolean check(Throwable t, String where) {
        if (!(t instanceof Error) || isThreadLimit(t)) {
            return false;
        }
        reserve = null; // first, so that the words below and the stop have heap
        String reason;
        try {
            reason = where + ": " + t;
        } catch (Throwable again) {
            reason = t.getClass().getName();
        }
        raise(reason);
        return true;
    }

    /** Whether the daemon is stopping after a fatal error: new requests are refused at once. */
    public static boolean raised() {
        return REASON.get() != null;
    }

    /** "unable to create native thread": RLIMIT_NPROC or kernel.threads-max, shared with other programs. */
    public static boolean isThreadLimit(Throwable t) {
        return t instanceof OutOfMemoryError && t.getMessage() != null && t.getMessage().contains("native thread");
    }

    /** Stops the daemon whole for {@code reason}; only the first call counts. Returns at once. */
    public static void raise(String reason) {
        if (REASON.compareAndSet(null, reason)) {
            reserve = null;
            emergency("ibemu: fatal: " + reason + "; stopping");
            if (stop == null) { // nothing installed (unit tests, tools): the old behaviour
                return;
            }
            RAISED.countDown();
        }
    }

    /** The reason given to the first {@link #raise}, or null. */
    public static String reason() {
        return REASON.get();
    }

    private static void awaitRaised() {
        while (true) {
            try {
                RAISED.await();
                return;
            } catch (InterruptedException ignored) {
                // only a raise ends the wait
            }
        }
    }

    /** Straight to stderr: logging itself may be what broke. */
    private static void emergency(String line) {
        try {
            System.err.println(line);
            System.err.flush();
        } catch (Throwable ignored) {
            // nothing left to tell it with
        }
    }
}
