package io.ibemu.devfs.supervise;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether a thread stopped in a notified call has a signal waiting for it, read from
 * /proc/TID/status: the daemon's stand-in for {@code signal_pending()}, which a call the
 * daemon holds cannot see (the filter's waits after receipt are killable only).
 */
enum PendingSignals {
    /** Nothing deliverable is pending. */
    NONE,
    /** A signal this thread will take: sent to it, or to a process of one thread. */
    THIS_THREAD,
    /** A signal sent to the process, which another of its threads may take. */
    PROCESS;

    static PendingSignals of(int tid) {
        String status;
        try {
            status = Files.readString(Path.of("/proc", Integer.toString(tid), "status"));
        } catch (IOException | RuntimeException e) {
            return NONE; // gone: the notification is no longer valid either
        }
        long blocked = mask(status, "\nSigBlk:");
        long own = mask(status, "\nSigPnd:") & ~blocked;
        long shared = mask(status, "\nShdPnd:") & ~blocked;
        if (own != 0) {
            return THIS_THREAD;
        }
        if (shared == 0) {
            return NONE;
        }
        return "1".equals(field(status, "\nThreads:")) ? THIS_THREAD : PROCESS;
    }

    private static long mask(String status, String name) {
        String hex = field(status, name);
        return hex == null ? 0 : Long.parseUnsignedLong(hex, 16);
    }

    private static String field(String status, String name) {
        int at = status.indexOf(name);
        if (at < 0) {
            return null;
        }
        int end = status.indexOf('\n', at + name.length());
        return status.substring(at + name.length(), end < 0 ? status.length() : end).strip();
    }
}
