package io.ibemu.devfs.supervise;

import static io.ibemu.devfs.supervise.Syscalls.MEMORY;

/**
 * How a supervisor thread blocked in SECCOMP_IOCTL_NOTIF_RECV is ended at close: RECV waits
 * interruptibly (seccomp's recv_wait_event), so a signal with a handler and without SA_RESTART
 * makes it return EINTR. The JDK has such a signal already: the one its NIO sends to end a
 * thread's blocking I/O when a channel closes (SIGRTMAX - 2, with an empty handler installed
 * by sun.nio.ch.NativeThread), so no handler of the daemon's own is installed. When that
 * handler is not found as expected, {@link #AVAILABLE} is false and listeners wait in poll
 * with a timeout instead.
 */
final class ReceiverWake {

    /** glibc's SIGRTMAX (64) - 2: the JDK's NIO interrupt signal on Linux. */
    static final int SIGNAL = 62;
    private static final long SIG_IGN = 1;
    private static final long SA_RESTART = 0x10000000L;
    /** struct kernel_sigaction on x86_64: handler, flags, restorer, mask. */
    private static final int KERNEL_SIGACTION_SIZE = 32;
    private static final long PID = ProcessHandle.current().pid();

    /** True when signalling a blocked receiver ends its RECV with EINTR and nothing else. */
    static final boolean AVAILABLE = handlerInstalled();

    private ReceiverWake() {
    }

    /** Sends the signal to thread {@code tid} of this process (tgkill: never to another process's thread). */
    static void signal(int tid) {
        Syscalls.LIBC.syscall(Syscalls.SYS_TGKILL, PID, tid, SIGNAL, 0, 0, 0);
    }

    private static boolean handlerInstalled() {
        try {
            // its static initializer installs the handler (NativeThread.init); loading needs no export
            Class.forName("sun.nio.ch.NativeThread");
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
        long action = MEMORY.allocateMemory(KERNEL_SIGACTION_SIZE, true);
        try {
            if (Syscalls.LIBC.syscall(Syscalls.SYS_RT_SIGACTION, SIGNAL, 0, action, 8, 0, 0) != 0) {
                return false;
            }
            long handler = MEMORY.getLong(action);
            long flags = MEMORY.getLong(action + 8);
            return handler > SIG_IGN && (flags & SA_RESTART) == 0;
        } finally {
            MEMORY.freeMemory(action);
        }
    }
}
