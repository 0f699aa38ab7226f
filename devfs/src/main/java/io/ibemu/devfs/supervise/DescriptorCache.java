package io.ibemu.devfs.supervise;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Library;
import com.kenai.jffi.Type;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongFunction;
import java.util.function.Predicate;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The open file (a {@link NodeFile}, a {@link SocketFile}) a caller's (tid, fd) was found to be,
 * so that a call does not pay a statx of /proc/TID/fd/N each time. An entry holds while nothing
 * can have changed what fd N is: every close of a descriptor of a node file (close, dup2/dup3
 * over it, close_range, exec's close-on-exec, exit all go through filp_close, which sends FUSE
 * FLUSH) drops the file's entries; a socket file's are dropped at its hang-up, a memfd-carried
 * file's at its release (fsnotify's close event), and both whenever the
 * supervisor installs a descriptor at their number (the one way a range number gets reused
 * without the caller's own dup2 into the range); and a hit
 * counts only while the tid still shares its fd table with the thread group it had when the entry
 * was made (kcmp KCMP_FILES): a tid reused by another process, or a thread that unshared its
 * table, misses.
 */
final class DescriptorCache<F> {

    private static final System.Logger LOG = System.getLogger(DescriptorCache.class.getName());
    private static final boolean AARCH64 = "aarch64".equals(System.getProperty("os.arch"));
    private static final long SYS_KCMP = AARCH64 ? 272 : 312;
    private static final int KCMP_FILES = 2;
    /** long syscall(long number, ...): kcmp(pid1, pid2, type, idx1, idx2) has no libc wrapper. */
    private static final CallContext SYSCALL = CallContext.getCallContext(Type.SINT64,
            new Type[] {Type.SINT64, Type.SINT64, Type.SINT64, Type.SINT64, Type.SINT64, Type.SINT64},
            CallingConvention.DEFAULT, true);
    private static final long SYSCALL_FUNCTION = Library.getDefault().getSymbolAddress("syscall");
    /** More entries than this and the cache starts over (threads come and go; entries of dead ones stay). */
    private static final int MAX_ENTRIES = 4096;

    /** The file and the thread group whose fd table the tid shared when the entry was made. */
    private record Entry<F>(F file, int tgid) {
    }

    private final Map<Long, Entry<F>> entries = new ConcurrentHashMap<>();
    /** Counts closes: an entry made across one is dropped again. */
    private final AtomicLong closes = new AtomicLong();
    private volatile boolean usable = SYSCALL_FUNCTION != 0;

    private static long key(int tid, int fd) {
        return (long) tid << 32 | (fd & 0xffffffffL);
    }

    /**
     * The file descriptor {@code fd} of {@code tid} is: a remembered answer that still holds, else
     * {@code find} given the address of the statx (STATX_INO, {@code statxFlags}) of
     * /proc/TID/fd/FD, whose answer is remembered when not null and {@code remember} holds for it.
     */
    F lookup(int tid, int fd, long pathScratch, long statScratch, int statxFlags, Predicate<F> remember,
            LongFunction<F> find) {
        F known = get(tid, fd);
        if (known != null) {
            return known;
        }
        long generation = generation();
        Supervisor.procFdPath(pathScratch, tid, fd);
        if (Syscalls.statx(Syscalls.AT_FDCWD, pathScratch, statxFlags, Syscalls.STATX_INO, statScratch) != 0) {
            return null;
        }
        F file = find.apply(statScratch);
        if (file != null && remember.test(file)) {
            put(tid, fd, file, generation);
        }
        return file;
    }

    /** The file (tid, fd) was, if that still holds; else null and the caller looks it up. */
    private F get(int tid, int fd) {
        Entry<F> e = entries.get(key(tid, fd));
        if (e == null) {
            return null;
        }
        if (!sameFiles(tid, e.tgid())) {
            entries.remove(key(tid, fd), e);
            return null;
        }
        return e.file();
    }

    /** The value of the close counter to hand to {@link #put} after a lookup. */
    private long generation() {
        return closes.get();
    }

    /** Remembers a lookup's answer, unless a close came after {@code generation} was read. */
    private void put(int tid, int fd, F file, long generation) {
        if (!usable) {
            return;
        }
        int tgid = tgid(tid);
        if (tgid <= 0 || !sameFiles(tid, tgid)) {
            return; // gone, or a thread with a table of its own: not cached
        }
        if (entries.size() >= MAX_ENTRIES) {
            entries.clear();
        }
        Entry<F> e = new Entry<>(file, tgid);
        long key = key(tid, fd);
        entries.put(key, e);
        if (closes.get() != generation) {
            entries.remove(key, e); // a descriptor closed meanwhile: what the lookup saw may be stale
        }
    }

    /** A descriptor of {@code file} was closed: no (tid, fd) answer naming it holds any more. */
    void closed(F file) {
        closes.incrementAndGet();
        entries.values().removeIf(e -> e.file() == file);
    }

    /** Something new stands at descriptor number {@code fd} in some caller: no answer for that number holds. */
    void forgetNumber(int fd) {
        closes.incrementAndGet();
        entries.keySet().removeIf(k -> (int) (long) k == fd);
    }

    private boolean sameFiles(int tid, int tgid) {
        if (tid == tgid) {
            return true; // a thread group's leader: its tid is its tgid until the whole group is gone
        }
        long r = Invoker.getInstance().invokeN6(SYSCALL, SYSCALL_FUNCTION, SYS_KCMP, tid, tgid, KCMP_FILES, 0, 0);
        if (r < 0 && Syscalls.errno() == io.ibemu.kernel.Errno.ENOSYS) {
            usable = false;
            entries.clear();
            LOG.log(System.Logger.Level.INFO, "no kcmp in this kernel: supervised writes look every fd up");
        }
        return r == 0;
    }

    private static int tgid(int tid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Integer.toString(tid), "status"))) {
                if (line.startsWith("Tgid:")) {
                    return Integer.parseInt(line.substring(5).strip());
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }
}
