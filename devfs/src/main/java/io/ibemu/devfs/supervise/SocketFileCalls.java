package io.ibemu.devfs.supervise;

import io.ibemu.devfs.device.DeviceFile;
import io.ibemu.devfs.device.IoctlResult;
import io.ibemu.devfs.device.MessageFile;
import io.ibemu.devfs.device.ReadRequest;
import io.ibemu.devfs.device.ReadResult;
import io.ibemu.devfs.supervise.Listener.Notification;
import io.ibemu.kernel.Errno;
import io.ibemu.kernel.ProcessMemory;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

import static io.ibemu.devfs.supervise.Syscalls.MEMORY;

/**
 * The calls the filter sends of a descriptor that is a {@link SocketFile}: read and readv, each
 * checked by the file ({@link MessageFile#admit}) before the caller's own read takes the head
 * datagram; ioctl with the restricted-ioctl copies of the kernel's FUSE; and dup, dup2, dup3 and
 * F_DUPFD, whose copies stay in the reserved range or turn the file into a FUSE file. Write and
 * fstat are the {@link Listener}'s, as for any device file of the range.
 */
final class SocketFileCalls {

    private static final int MSG_PEEK = 2;
    private static final int MSG_TRUNC = 0x20;
    private static final int MSG_DONTWAIT = 0x40;
    private static final int IOC_WRITE = 1;
    private static final int IOC_READ = 2;
    private static final long PAGE = 4096; // the smallest page: a larger one only reads ahead less
    /** Bytes read past an ioctl's argument in its last page: a uverbs header's 62 attributes. */
    private static final int READ_AHEAD = 1024;
    /** The kernel's own restart code: with SA_RESTART the call runs again, without it is EINTR. */
    private static final int ERESTARTSYS = 512;
    // ioctls the VFS answers for every file before the driver (do_vfs_ioctl): a socket's the same
    private static final int FIOCLEX = 0x5451;
    private static final int FIONCLEX = 0x5450;
    private static final int FIONBIO = 0x5421;
    private static final int FIOASYNC = 0x5452;
    private static final int FIGETBSZ = 2;

    private final Listener listener;
    private final Supervisor supervisor;

    SocketFileCalls(Listener listener, Supervisor supervisor) {
        this.listener = listener;
        this.supervisor = supervisor;
    }

    /**
     * read/readv of a socket-carried file: the file checks the read ({@link MessageFile#admit});
     * one that fits continues and takes the head datagram itself, others fail as the kernel's
     * read does, the head left queued.
     */
    void read(Notification n) throws Errno {
        long[] a = n.args();
        Object found = listener.rangeFile(n.tid(), a[0]);
        SocketFile s = found instanceof SocketFile f ? f : null;
        if (s == null) {
            if (found instanceof NodeFile f && (f.mapped || n.nr() == Syscalls.SYS_READ && a[2] == 0)) {
                readNothing(n, f);
            } else {
                listener.proceed(n);
            }
            return;
        }
        if (!s.readable()) {
            listener.fail(n, Errno.EBADF);
            return;
        }
        long buffer = a[1];
        long length = a[2];
        if (n.nr() == Syscalls.SYS_READV) {
            long[] segments;
            try {
                segments = UserMemory.iovecs(n.tid(), a[1], a[2]);
            } catch (Errno e) {
                listener.fail(n, e.code());
                return;
            }
            if (segments.length == 0) {
                listener.reply(n, 0);
                return;
            }
            if (segments.length > 2) {
                readSegments(n, s, segments);
                return;
            }
            buffer = segments[0];
            length = segments[1];
        }
        SupervisedCaller caller = new SupervisedCaller(listener, n.id(), n.tid(), true);
        ReadResult refused;
        try {
            refused = s.file.admit(new RangeRead(caller, n.tid(), (int) a[0], buffer, length));
        } catch (Errno e) {
            failInterruptible(n, caller, e.code());
            return;
        }
        if (refused == null) {
            listener.proceed(n); // the head fits: the caller's own read takes it
            return;
        }
        if (refused.data() != null && !copyOut(n.tid(), buffer, refused.data())) {
            listener.fail(n, Errno.EFAULT);
            return;
        }
        listener.fail(n, refused.errno());
    }

    /**
     * read(fd, buf, 0) of a FUSE file in the range (uverbs): FUSE answers 0 without asking,
     * where vfs_read goes on whatever the count (a file without read: EINVAL). So the device
     * file answers; and any read of a memfd-carried file (uverbs with mapped queues), which
     * would otherwise read the queue memory: a device such a file serves has no read.
     */
    private void readNothing(Notification n, NodeFile f) {
        if ((f.flags & Syscalls.O_ACCMODE) == Syscalls.O_WRONLY) {
            listener.fail(n, Errno.EBADF);
            return;
        }
        SupervisedCaller caller = new SupervisedCaller(listener, n.id(), n.tid(), true);
        try {
            ReadResult r = f.read(new RangeRead(caller, n.tid(), (int) n.args()[0], n.args()[1], 0));
            if (r.failed()) {
                failInterruptible(n, caller, r.errno());
            } else {
                listener.reply(n, 0);
            }
        } catch (Errno e) {
            failInterruptible(n, caller, e.code());
        }
    }

    /**
     * readv of more than one segment, as do_loop_readv_writev runs a driver without read_iter:
     * a read per segment while each fills its segment. The daemon takes each datagram itself
     * (from a copy of the caller's descriptor) and copies it in.
     */
    private void readSegments(Notification n, SocketFile s, long[] segments) {
        SupervisedCaller caller = new SupervisedCaller(listener, n.id(), n.tid(), true);
        long total = 0;
        for (int i = 0; i < segments.length; i += 2) {
            int error;
            try {
                ReadResult refused = s.file.admit(new RangeRead(caller, n.tid(), (int) n.args()[0], segments[i],
                        segments[i + 1]));
                if (refused == null) {
                    byte[] message = takeHead(n.tid(), (int) n.args()[0]);
                    if (!copyOut(n.tid(), segments[i], message)) {
                        error = Errno.EFAULT;
                    } else {
                        total += message.length;
                        if (message.length == segments[i + 1]) {
                            continue;
                        }
                        break;
                    }
                } else {
                    error = refused.data() != null && !copyOut(n.tid(), segments[i], refused.data()) ? Errno.EFAULT
                            : refused.errno();
                }
            } catch (Errno e) {
                error = e.code();
            }
            if (total == 0) {
                failInterruptible(n, caller, error);
                return;
            }
            break;
        }
        listener.reply(n, total);
    }

    /** The head datagram of the caller's end, received whole through a copy of the caller's descriptor. */
    private static byte[] takeHead(int tid, int fd) throws Errno {
        int copy = Syscalls.callerDescriptor(tid, fd);
        try {
            // its size first (MSG_PEEK|MSG_TRUNC answers a datagram's whole length), then itself
            int size = (int) Syscalls.syscall(Syscalls.SYS_RECVFROM, copy, 0, 0, MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT, 0);
            long buffer = MEMORY.allocateMemory(Math.max(size, 1), false);
            try {
                int got = (int) Syscalls.syscall(Syscalls.SYS_RECVFROM, copy, buffer, size, MSG_DONTWAIT, 0);
                byte[] message = new byte[got];
                MEMORY.getByteArray(buffer, message, 0, got);
                return message;
            } finally {
                MEMORY.freeMemory(buffer);
            }
        } finally {
            Syscalls.LIBC.close(copy);
        }
    }

    /**
     * dup/dup2/dup3/fcntl(F_DUPFD*) of a socket-carried file: a copy at a range number is a copy
     * of the caller's end there; a copy elsewhere (a shell's {@code exec 3<>}) would take the
     * file out of the daemon's sight, so both descriptors become one FUSE file of it instead.
     * Other calls and other files continue; a dup2/dup3 of one onto a range number first drops
     * what was known of that number, since the pair end it may replace closes unseen.
     */
    void duplicate(Notification n) throws Errno {
        long[] a = n.args();
        if (n.nr() == Syscalls.SYS_FCNTL && a[1] != Syscalls.F_DUPFD && a[1] != Syscalls.F_DUPFD_CLOEXEC) {
            listener.proceed(n);
            return;
        }
        Object found = listener.rangeFile(n.tid(), a[0]);
        SocketFile s = found instanceof SocketFile f ? f : null;
        if (found instanceof NodeFile f && f.mapped) {
            duplicateMapped(n);
            return;
        }
        if (s == null) {
            if ((n.nr() == Syscalls.SYS_DUP2 || n.nr() == Syscalls.SYS_DUP3) && a[1] >= listener.base()
                    && a[1] < listener.base() + listener.count()) {
                supervisor.installedAt((int) a[1]);
            }
            listener.proceed(n);
            return;
        }
        int fd = (int) a[0];
        Copy c = copyOf(n);
        if (c.errno() != 0) {
            listener.fail(n, c.errno());
            return;
        }
        if (c.target() == fd) {
            listener.reply(n, fd); // dup2(fd, fd): nothing to copy
            return;
        }
        int copy = Syscalls.callerDescriptor(n.tid(), fd);
        try {
            int fdFlags = c.cloexec() ? Syscalls.O_CLOEXEC : 0;
            if (c.target() >= listener.base() && c.target() < listener.base() + listener.count()) {
                listener.addFd(n.id(), copy, c.target(), Syscalls.ADDFD_SETFD | Syscalls.ADDFD_SEND, fdFlags);
                return;
            }
            int flags = fdFlags(n.tid(), fd);
            supervisor.socketFiles().giveUp(s, copy);
            int local = supervisor.openFile(null, s.file, s.accessMode() | (flags & Syscalls.O_NONBLOCK));
            try {
                listener.addFd(n.id(), local, fd, Syscalls.ADDFD_SETFD, flags & Syscalls.O_CLOEXEC);
                listener.addFd(n.id(), local, c.target(), Syscalls.ADDFD_SETFD | Syscalls.ADDFD_SEND, fdFlags);
            } finally {
                Syscalls.LIBC.close(local);
            }
        } catch (Errno e) {
            listener.fail(n, e.code());
        } finally {
            Syscalls.LIBC.close(copy);
        }
    }

    /**
     * dup/F_DUPFD of a memfd-carried file: the copy goes to a range number as for a socket-carried
     * one, so that its calls stay the daemon's; a dup2/dup3 continues (to a number outside the
     * range its copy is the memfd itself: see docs/compatibility.md).
     */
    private void duplicateMapped(Notification n) throws Errno {
        long[] a = n.args();
        if (n.nr() == Syscalls.SYS_DUP2 || n.nr() == Syscalls.SYS_DUP3) {
            if (a[1] >= listener.base() && a[1] < listener.base() + listener.count()) {
                supervisor.installedAt((int) a[1]);
            }
            listener.proceed(n);
            return;
        }
        Copy c = copyOf(n);
        if (c.errno() != 0) {
            listener.fail(n, c.errno());
            return;
        }
        if (c.target() < listener.base() || c.target() >= listener.base() + listener.count()) {
            listener.proceed(n); // F_DUPFD above the range: the kernel's own answer
            return;
        }
        int copy = Syscalls.callerDescriptor(n.tid(), (int) a[0]);
        try {
            listener.addFd(n.id(), copy, c.target(), Syscalls.ADDFD_SETFD | Syscalls.ADDFD_SEND,
                    c.cloexec() ? Syscalls.O_CLOEXEC : 0);
        } catch (Errno e) {
            listener.fail(n, e.code());
        } finally {
            Syscalls.LIBC.close(copy);
        }
    }

    /** Where a dup-like call puts its copy and whether it is close-on-exec, or the errno it fails with. */
    private record Copy(int target, boolean cloexec, int errno) {
        static Copy failed(int errno) {
            return new Copy(-1, false, errno);
        }
    }

    /**
     * dup: the lowest free range number (not the lowest free number: see decisions.md); F_DUPFD:
     * the lowest free number from its argument on, taken in the range while the range has one;
     * dup2/dup3: their target, with dup3's flags checked as ksys_dup3 does.
     */
    private Copy copyOf(Notification n) {
        long[] a = n.args();
        int base = listener.base();
        int end = base + listener.count();
        switch (n.nr()) {
            case Syscalls.SYS_DUP -> {
                int target = listener.lowestFree(n.tid(), base);
                return target < 0 ? Copy.failed(Errno.EMFILE) : new Copy(target, false, 0);
            }
            case Syscalls.SYS_FCNTL -> {
                int min = (int) a[2]; // the kernel takes the argument as an int
                if (min < 0) {
                    return Copy.failed(Errno.EINVAL);
                }
                int target = min < end ? listener.lowestFree(n.tid(), Math.max(min, base)) : lowestFreeAbove(n.tid(), min);
                return target < 0 ? Copy.failed(Errno.EMFILE) : new Copy(target, a[1] == Syscalls.F_DUPFD_CLOEXEC, 0);
            }
            default -> {
                boolean dup3 = n.nr() == Syscalls.SYS_DUP3;
                if (dup3 && ((a[2] & ~Syscalls.O_CLOEXEC) != 0 || a[1] == a[0])) {
                    return Copy.failed(Errno.EINVAL);
                }
                if (a[1] < 0 || a[1] > Integer.MAX_VALUE) {
                    return Copy.failed(Errno.EBADF);
                }
                return new Copy((int) a[1], dup3 && (a[2] & Syscalls.O_CLOEXEC) != 0, 0);
            }
        }
    }

    /** The "flags:" of /proc/TID/fdinfo/FD: the file's status flags, and O_CLOEXEC for the descriptor's own. */
    private static int fdFlags(int tid, int fd) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Integer.toString(tid), "fdinfo",
                    Integer.toString(fd)))) {
                if (line.startsWith("flags:")) {
                    return Integer.parseInt(line.substring(6).strip(), 8);
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone: the notification is dropped anyway
        }
        return 0;
    }

    /** A blocking call the device ended: ERESTARTSYS where a signal will reach the thread, as the kernel's waits return. */
    private void failInterruptible(Notification n, SupervisedCaller caller, int errno) {
        if (errno == Errno.EINTR && caller.signalled() == PendingSignals.THIS_THREAD) {
            listener.fail(n, ERESTARTSYS);
        } else {
            listener.fail(n, errno);
        }
    }

    private static boolean copyOut(int tid, long address, byte[] data) {
        try {
            ProcessMemory.write(tid, address, data, 0, data.length);
            return true;
        } catch (Errno e) {
            return false;
        }
    }


    /**
     * One read(2) of a range file; O_NONBLOCK read from the caller's fdinfo only when the queue
     * is empty. A socket-carried file tries its buffer before it lets go of the head: the
     * caller's recv would drop a datagram it cannot copy, where ib_umad_read puts the packet back.
     */
    private static final class RangeRead implements ReadRequest {
        private final SupervisedCaller caller;
        private final int tid;
        private final int fd;
        private final long buffer;
        private final int count;

        RangeRead(SupervisedCaller caller, int tid, int fd, long buffer, long count) {
            this.caller = caller;
            this.tid = tid;
            this.fd = fd;
            this.buffer = buffer;
            this.count = (int) Math.min(Math.max(count, 0), Integer.MAX_VALUE); // MAX_RW_COUNT and more
        }

        @Override
        public boolean takes(int length) {
            return ProcessMemory.writable(tid, buffer, length);
        }

        @Override
        public io.ibemu.devfs.device.Caller caller() {
            return caller;
        }

        @Override
        public int count() {
            return count;
        }

        @Override
        public boolean nonBlocking() {
            return (fdFlags(tid, fd) & Syscalls.O_NONBLOCK) != 0;
        }
    }

    /**
     * ioctl of a socket-carried file: the VFS's own commands continue (the socket answers them
     * alike), the rest go to the file with the kernel FUSE's restricted-ioctl copies
     * (_IOC_SIZE bytes in for _IOC_WRITE, back out for _IOC_READ).
     */
    void ioctl(Notification n) throws Errno {
        long[] a = n.args();
        Object found = listener.rangeFile(n.tid(), a[0]);
        // a device file the range carries as a socket (umad), or a FUSE file of the range
        // (uverbs), which is served here too so that its ioctl can install descriptors
        DeviceFile file = found instanceof SocketFile s ? s.file : found instanceof NodeFile f ? f.file : null;
        int cmd = (int) a[1];
        if (file == null || cmd == FIOCLEX || cmd == FIONCLEX || cmd == FIONBIO || cmd == FIOASYNC || cmd == FIGETBSZ) {
            listener.proceed(n);
            return;
        }
        if (found instanceof SocketFile) {
            supervisor.socketFiles().reap(); // an agent of a file closed just now is unregistered already
        }
        int dir = cmd >>> 30;
        int size = (cmd >>> 16) & 0x3fff;
        byte[] in = new byte[0];
        SupervisedCaller caller = new SupervisedCaller(listener, n.id(), n.tid());
        if ((dir & IOC_WRITE) != 0 && size > 0) {
            try {
                in = readArgument(caller, a[2], size);
            } catch (Errno e) {
                listener.fail(n, Errno.EFAULT);
                return;
            }
        }
        IoctlResult result;
        try {
            result = file.ioctl(caller, cmd, a[2], in);
        } catch (Errno e) {
            listener.fail(n, e.code());
            return;
        }
        if ((dir & IOC_READ) != 0 && result.out().length > 0
                && !copyOut(n.tid(), a[2], Arrays.copyOf(result.out(), Math.min(size, result.out().length)))) {
            listener.fail(n, Errno.EFAULT);
            return;
        }
        if (result.errno() != 0) {
            listener.fail(n, result.errno());
        } else {
            listener.reply(n, result.value());
        }
    }

    /**
     * The ioctl's {@code size} argument bytes, read together with the rest of the last page they
     * touch (at most {@link #READ_AHEAD} bytes): what follows an argument (uverbs' attribute array
     * after its header, often the command it points to) then costs no second process_vm_readv.
     * No page is touched that the argument does not, so EFAULT is the argument's own.
     */
    private static byte[] readArgument(SupervisedCaller caller, long arg, int size) throws Errno {
        long end = arg + size;
        long pageEnd = (end + PAGE - 1) & -PAGE;
        int ahead = (int) Math.min(pageEnd - end, READ_AHEAD);
        byte[] bytes = ProcessMemory.read(caller.tid(), arg, size + ahead);
        caller.readAhead(arg, bytes);
        return Arrays.copyOf(bytes, size);
    }

    /** F_DUPFD's answer past the range: the lowest number from {@code from} on that is free, or -1. */
    private static int lowestFreeAbove(int tid, int from) {
        String[] names = new File("/proc/" + tid + "/fd").list();
        Set<Integer> used = new HashSet<>();
        for (String name : names == null ? new String[0] : names) {
            used.add(Integer.parseInt(name));
        }
        int n = from;
        while (used.contains(n)) {
            n++;
        }
        return n;
    }
}
