package io.ibemu.devfs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

/**
 * The system call a thread is blocked in, from {@code /proc/<tid>/syscall} ("nr arg0 arg1 ...",
 * arguments in hex). FUSE requests carry neither the caller's buffer address nor the syscall's
 * byte count; this is where they are found.
 */
record BlockedSyscall(long number, long[] args) {

    private static final boolean AARCH64 = "aarch64".equals(System.getProperty("os.arch"));
    private static final long READ = AARCH64 ? 63 : 0;
    private static final long WRITE = AARCH64 ? 64 : 1;

    /**
     * The syscall of a caller whose FUSE request is being served, or null when it is gone or
     * unreadable. The caller may not have gone to sleep yet (request_wait_answer after the
     * request is queued), and until it does its syscall file says "running"
     * (task_current_syscall: EAGAIN for a runnable task). It sleeps as soon as it is scheduled,
     * since it waits for this reply; up to 1 s of 0.5 ms naps.
     */
    static BlockedSyscall ofServed(int tid) {
        Path file = Path.of("/proc", Integer.toString(tid), "syscall");
        for (int nap = 0; nap < 2000; nap++) {
            String text;
            try {
                text = Files.readString(file, StandardCharsets.US_ASCII);
            } catch (IOException e) {
                return null;
            }
            if (!text.startsWith("running")) {
                return parse(text);
            }
            LockSupport.parkNanos(500_000);
        }
        return null;
    }

    static BlockedSyscall parse(String text) {
        String[] fields = text.trim().split(" ");
        if (fields.length < 4 || fields[0].equals("running") || fields[0].startsWith("-")) {
            return null;
        }
        try {
            long[] args = new long[fields.length - 1];
            for (int i = 1; i < fields.length; i++) {
                args[i - 1] = Long.parseUnsignedLong(fields[i].substring(2), 16);
            }
            return new BlockedSyscall(Long.parseLong(fields[0]), args);
        } catch (RuntimeException e) {
            return null;
        }
    }

    boolean isRead() {
        return number == READ;
    }

    boolean isWrite() {
        return number == WRITE;
    }

    /** read/write: the user buffer. */
    long buffer() {
        return args[1];
    }

    /** read/write: the byte count. */
    long count() {
        return args[2];
    }
}
