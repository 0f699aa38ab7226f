package io.ibemu.devfs;

import io.ibemu.devfs.fuse.OpenFlags;
import jnr.ffi.Pointer;
import jnr.ffi.Struct;
import jnr.ffi.types.off_t;
import ru.serce.jnrfuse.ErrorCodes;
import ru.serce.jnrfuse.FuseFillDir;
import ru.serce.jnrfuse.FuseStubFS;
import ru.serce.jnrfuse.struct.FileStat;
import ru.serce.jnrfuse.struct.FuseFileInfo;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * The FUSE callbacks of a {@link DeviceDirectory}. The I/O callbacks (open, read, write, ioctl,
 * poll, release) are installed raw, reading {@code struct fuse_file_info} by offset, because
 * jnr-fuse builds a new struct object with a dozen field objects for every call; with
 * {@code flag_nopath} libfuse does not build their paths either.
 *
 * <p>No exception leaves a callback: a device's {@link Errno} becomes {@code -errno}, anything
 * else is logged and becomes {@code -EIO}.
 */
final class DeviceFileSystem extends FuseStubFS implements PollNotice {

    private static final System.Logger LOG = System.getLogger(DeviceFileSystem.class.getName());

    /** FUSE sends at most this much per READ/WRITE (max_read, max_write, 32 pages). */
    static final int MAX_REQUEST = 128 * 1024;
    /**
     * A request this large may be the first piece of a larger syscall: the first piece covers 32
     * pages of the caller's buffer, so it is 128 KiB less the buffer's offset in its page.
     */
    static final int SPLIT_CANDIDATE = MAX_REQUEST - 4096;
    /** Larger writes are refused: the device sees a write whole or not at all. */
    private static final long MAX_JOINED_WRITE = 64L << 20;
    static final int MAX_READ_COUNT = Integer.MAX_VALUE - 64;

    // struct fuse_file_info on LP64: int flags @0, ..., uint64_t fh @24
    private static final long FI_FLAGS = 0;
    private static final long FI_FH = 24;
    private static final int O_NONBLOCK = 04000;

    // struct fuse_operations (2.9, LP64): 38 function pointers, then the flag bit fields, then 6 more
    private static final int OPERATIONS_FLAGS = 38 * 8;
    private static final int OPERATIONS_SIZE = OPERATIONS_FLAGS + 8 + 6 * 8;
    private static final int FLAG_NULLPATH_OK = 1;
    private static final int FLAG_NOPATH = 1 << 1;

    private static final int IOC_WRITE = 1;
    private static final int IOC_READ = 2;
    private static final byte[] NOTHING = new byte[0];

    private final Map<String, DeviceDirectory.Entry> entries;
    private final Map<String, DeviceDirectory.Entry> hidden;
    /** One-shot entries gone from {@code hidden} but still open: fstat of their descriptors asks for them by name. */
    private final Map<String, DeviceDirectory.Entry> openedHidden = new java.util.concurrent.ConcurrentHashMap<>();
    private final long created = System.currentTimeMillis() / 1000;
    final HandleTable handles = new HandleTable();
    final CountDownLatch initialized = new CountDownLatch(1);
    private volatile boolean closing;
    private volatile long fuse;

    DeviceFileSystem(Map<String, DeviceDirectory.Entry> entries, Map<String, DeviceDirectory.Entry> hidden) {
        this.entries = entries;
        this.hidden = hidden;
        fuseOperations.open.set((path, fi) -> answered(open(path, fi)));
        fuseOperations.read.set((path, buf, size, offset, fi) -> answered(read(buf, size, offset, fi)));
        fuseOperations.write.set((path, buf, size, offset, fi) -> answered(write(buf, size, offset, fi)));
        fuseOperations.ioctl.set((path, cmd, arg, fi, flags, data) -> answered(ioctl(cmd, arg, fi, data)));
        fuseOperations.poll.set((path, fi, ph, reventsp) -> answered(poll(fi, ph, reventsp)));
        fuseOperations.flush.set((path, fi) -> answered(flush(fi)));
        fuseOperations.release.set((path, fi) -> answered(release(fi)));
        fuseOperations.init.set(conn -> {
            try {
                fuse = Fuse2.fuse(Fuse2.context());
            } catch (Throwable t) {
                failed("init", t);
            }
            initialized.countDown();
            return null;
        });
        if (Struct.size(fuseOperations) == OPERATIONS_SIZE) {
            Struct.getMemory(fuseOperations).putInt(OPERATIONS_FLAGS, FLAG_NULLPATH_OK | FLAG_NOPATH);
        }
    }

    /** The I/O callbacks' result, after telling the loop that this worker is done with it. */
    private static int answered(int result) {
        FuseLoop.answered();
        return result;
    }

    @Override
    public boolean closing() {
        return closing;
    }

    @Override
    public void notify(long handle) {
        Fuse2.LIB.fuse_notify_poll(handle);
    }

    @Override
    public void destroy(long handle) {
        Fuse2.LIB.fuse_pollhandle_destroy(handle);
    }

    /** From now on devices see every caller as interrupted and no poll notification is sent. */
    void startClosing() {
        closing = true;
        for (OpenFile file : handles.all()) {
            file.retirePoll();
        }
    }

    /**
     * fuse_exit: the loop's workers end after their next request. Nothing once the loop has
     * torn the session down (fuse_exit on a freed session crashed the JVM at a stop after the
     * loop had ended by itself).
     */
    synchronized void exitSession() {
        if (fuse != 0) {
            Fuse2.LIB.fuse_exit(fuse);
        }
    }

    /** The loop is about to tear the session down: no poll notification, no fuse_exit after this. */
    private synchronized void sessionEnding() {
        startClosing();
        fuse = 0;
    }

    /** fuse_main on Java threads: see {@link FuseLoop}. */
    int mainLoop(String threadName, String[] argv) {
        return FuseLoop.run(threadName, argv, fuseOperations, Struct.size(fuseOperations), this::sessionEnding);
    }

    // ---- directory ----

    @Override
    public int getattr(String path, FileStat stat) {
        try {
            if ("/".equals(path)) {
                stat.st_mode.set(FileStat.S_IFDIR | 0755);
                stat.st_nlink.set(2);
            } else {
                DeviceDirectory.Entry entry = entry(path);
                if (entry == null) {
                    return -Errno.ENOENT;
                }
                stat.st_mode.set(FileStat.S_IFREG | entry.mode());
                stat.st_nlink.set(1);
                stat.st_size.set(0);
                stat.st_uid.set(entry.uid());
                stat.st_gid.set(entry.gid());
            }
            stat.st_mtim.tv_sec.set(created);
            stat.st_ctim.tv_sec.set(created);
            stat.st_atim.tv_sec.set(created);
            return 0;
        } catch (Throwable t) {
            return failed("getattr", t);
        }
    }

    @Override
    public int readdir(String path, Pointer buf, FuseFillDir filler, @off_t long offset, FuseFileInfo fi) {
        try {
            if (path != null && !"/".equals(path)) { // null under flag_nopath: the only directory
                return -ErrorCodes.ENOTDIR();
            }
            filler.apply(buf, ".", null, 0);
            filler.apply(buf, "..", null, 0);
            for (String name : List.copyOf(entries.keySet())) {
                filler.apply(buf, name, null, 0);
            }
            return 0;
        } catch (Throwable t) {
            return failed("readdir", t);
        }
    }

    /** O_TRUNC opens (shell redirection) truncate first; a character device ignores it. */
    @Override
    public int truncate(String path, @off_t long size) {
        return entry(path) == null ? -Errno.ENOENT : 0;
    }

    private DeviceDirectory.Entry entry(String path) {
        if (path == null || path.length() < 2) {
            return null;
        }
        String name = path.substring(1);
        DeviceDirectory.Entry entry = entries.get(name);
        if (entry == null) {
            entry = hidden.get(name);
        }
        return entry != null ? entry : openedHidden.get(name);
    }

    // ---- files ----

    private int open(String path, Pointer fi) {
        try {
            if (closing || Fatal.raised()) {
                return -Errno.ENODEV;
            }
            DeviceDirectory.Entry entry = entry(path);
            if (entry == null) {
                return -Errno.ENOENT;
            }
            RequestCaller caller = RequestCaller.current(Fuse2.context(), this);
            DeviceFile device = entry.device().open(caller, fi.getInt(FI_FLAGS));
            if (device == null) {
                LOG.log(System.Logger.Level.ERROR, "{0}: open returned no file", path);
                return -Errno.EIO;
            }
            fi.putLong(FI_FH, handles.add(new OpenFile(device, path.substring(1), this)));
            if (hidden.containsKey(path.substring(1))) {
                openedHidden.put(path.substring(1), entry);
            }
            OpenFlags.characterDevice(fi);
            return 0;
        } catch (Errno e) {
            return -errno(e.code());
        } catch (Throwable t) {
            return failed("open", t);
        }
    }

    /**
     * Every close of a descriptor (filp_close -> fuse_flush), inside close(2); answered, so the
     * kernel keeps sending them. For a device that asks, the last one releases the file.
     */
    private int flush(Pointer fi) {
        try {
            OpenFile file = handles.get(fi.getLong(FI_FH));
            if (file != null) {
                file.device.flush();
                if (file.device.releaseAtLastClose() && !OpenDescriptors.anyLinkTo(file.name)) {
                    file.release();
                }
            }
            return 0;
        } catch (Throwable t) {
            return failed("flush", t);
        }
    }

    private int release(Pointer fi) {
        try {
            OpenFile file = handles.remove(fi.getLong(FI_FH));
            if (file != null) {
                openedHidden.remove(file.name);
                file.release();
            }
            return 0;
        } catch (Throwable t) {
            return failed("release", t);
        }
    }

    /** One whole read(2) or write(2) as the device sees it. */
    private interface Syscall {
        int run(OpenFile file, RequestCaller caller, Pointer buf, int size, long offset, int flags) throws Errno;
    }

    private final Syscall readSyscall = this::readSyscall;
    private final Syscall writeSyscall = this::writeSyscall;

    private int read(Pointer buf, long requestSize, long offset, Pointer fi) {
        return transfer("read", false, buf, requestSize, offset, fi, readSyscall);
    }

    private int write(Pointer buf, long requestSize, long offset, Pointer fi) {
        return transfer("write", true, buf, requestSize, offset, fi, writeSyscall);
    }

    /** A FUSE READ or WRITE: the next piece of a syscall FUSE split, or a new syscall. */
    private int transfer(String what, boolean write, Pointer buf, long requestSize, long offset, Pointer fi,
                         Syscall whole) {
        try {
            OpenFile file = handles.get(fi.getLong(FI_FH));
            if (file == null) {
                return -Errno.EBADF;
            }
            if (Fatal.raised()) { // stopping whole: answer without allocating (ib_umad_write of a removed port: EIO)
                return -Errno.EIO;
            }
            int size = (int) requestSize;
            long context = Fuse2.context();
            int tid = Fuse2.tid(context);
            SplitSyscall split = file.takeSplit(tid, write);
            if (split != null && split.follows(offset, size)) {
                return nextPiece(file, split, write ? null : buf, size);
            }
            return whole.run(file, RequestCaller.current(context, this), buf, size, offset, fi.getInt(FI_FLAGS));
        } catch (Errno e) {
            return -errno(e.code());
        } catch (Throwable t) {
            return failed(what, t);
        }
    }

    private int readSyscall(OpenFile file, RequestCaller caller, Pointer buf, int size, long offset, int flags)
            throws Errno {
        BlockedSyscall syscall = size > SPLIT_CANDIDATE ? BlockedSyscall.of(caller.tid()) : null;
        int count = size;
        if (syscall != null && syscall.isRead() && syscall.count() > size) {
            count = (int) Math.min(syscall.count(), MAX_READ_COUNT);
        }
        ReadResult result = file.device.read(new Read(caller, count, (flags & O_NONBLOCK) != 0));
        byte[] data = result.data() == null ? NOTHING : result.data();
        if (result.failed()) {
            if (data.length > 0) {
                placeInBuffer(caller, syscall, data, count);
            }
            return -errno(result.errno());
        }
        int available = Math.min(data.length, count);
        int reply = Math.min(available, size);
        buf.put(0, data, 0, reply);
        SplitSyscall rest = SplitSyscall.after(caller.tid(), false, data, count, available, reply, size, offset);
        if (rest != null) {
            file.putSplit(rest);
        }
        return reply;
    }

    /** A read that fails after writing into the buffer: FUSE replies carry data or an errno. */
    static void placeInBuffer(RequestCaller caller, BlockedSyscall syscall, byte[] data, int count)
            throws Errno {
        BlockedSyscall read = syscall != null ? syscall : BlockedSyscall.of(caller.tid());
        if (read == null || !read.isRead()) {
            LOG.log(System.Logger.Level.WARNING, "{0}: cannot find the read buffer, {1} bytes dropped",
                    caller, data.length);
            return;
        }
        int length = (int) Math.min(data.length, Math.min(count, read.count()));
        ProcessMemory.write(caller.tid(), read.buffer(), data, 0, length);
    }

    private int writeSyscall(OpenFile file, RequestCaller caller, Pointer buf, int size, long offset, int flags)
            throws Errno {
        byte[] data = size > SPLIT_CANDIDATE ? wholeWrite(caller, size) : null;
        if (data == null) {
            data = new byte[size];
            buf.get(0, data, 0, size);
        }
        int count = data.length;
        int written = file.device.write(caller, ByteBuffer.wrap(data), flags);
        int accepted = Math.max(0, Math.min(written, count));
        int reply = Math.min(accepted, size);
        SplitSyscall rest = SplitSyscall.after(caller.tid(), true, null, count, accepted, reply, size, offset);
        if (rest != null) {
            file.putSplit(rest);
        }
        return reply;
    }

    /**
     * The whole buffer of a write(2) FUSE splits, read from the caller at its first piece so the
     * device sees it once and its errno reaches the caller; null when it is not split. As the
     * kernel's copy_from_user of the whole buffer, a fault anywhere in it is EFAULT; a write
     * past the join limit is refused whole (ENOMEM, an allocation that fails), never cut short.
     */
    static byte[] wholeWrite(RequestCaller caller, int size) throws Errno {
        BlockedSyscall syscall = BlockedSyscall.of(caller.tid());
        if (syscall == null || !syscall.isWrite() || syscall.count() <= size) {
            return null;
        }
        if (syscall.count() > MAX_JOINED_WRITE) {
            throw Errno.of(Errno.ENOMEM);
        }
        try {
            return ProcessMemory.read(caller.tid(), syscall.buffer(), (int) syscall.count());
        } catch (Errno e) {
            if (e.code() == Errno.EFAULT) {
                throw e;
            }
            LOG.log(System.Logger.Level.WARNING, "{0}: cannot read a {1}-byte write whole (errno {2})",
                    caller, syscall.count(), e.code());
            throw Errno.of(Errno.EIO);
        }
    }

    /** A later request of a split syscall: served from what the device already answered. */
    private static int nextPiece(OpenFile file, SplitSyscall split, Pointer buf, int size) {
        int from = split.replied();
        int reply = split.nextReply(size);
        if (buf != null && reply > 0) {
            buf.put(0, split.data, from, reply);
        }
        if (split.continuesAfter(reply, size)) {
            file.putSplit(split);
        }
        return reply;
    }

    private int ioctl(int cmd, Pointer arg, Pointer fi, Pointer data) {
        try {
            OpenFile file = handles.get(fi.getLong(FI_FH));
            if (file == null) {
                return -Errno.EBADF;
            }
            if (Fatal.raised()) {
                return -Errno.EIO;
            }
            int direction = cmd >>> 30;
            int size = (cmd >>> 16) & 0x3fff;
            byte[] in = NOTHING;
            if ((direction & IOC_WRITE) != 0 && size > 0) {
                in = new byte[size];
                data.get(0, in, 0, size);
            }
            RequestCaller caller = RequestCaller.current(Fuse2.context(), this);
            IoctlResult result = file.device.ioctl(caller, cmd, arg == null ? 0 : arg.address(), in);
            byte[] out = result.out() == null ? NOTHING : result.out();
            if ((direction & IOC_READ) != 0 && size > 0) {
                copyOut(out, size, direction, data);
                if (result.errno() != 0 && out.length > 0) {
                    FuseLoop.errorCarriesData();
                }
            }
            return result.errno() != 0 ? -errno(result.errno()) : result.value();
        } catch (Errno e) {
            return -errno(e.code());
        } catch (Throwable t) {
            return failed("ioctl", t);
        }
    }

    /**
     * The reply's out buffer is exactly {@code _IOC_SIZE} bytes; with a negative result it reaches
     * the caller only when the device wrote it ({@link IoctlChannel}).
     */
    private static void copyOut(byte[] out, int size, int direction, Pointer data) {
        int length = Math.min(out.length, size);
        data.put(0, out, 0, length);
        if (length < size && direction == IOC_READ) {
            data.setMemory(length, size - length, (byte) 0);
        }
    }

    private int poll(Pointer fi, Pointer ph, Pointer reventsp) {
        try {
            OpenFile file = handles.get(fi.getLong(FI_FH));
            if (file == null) {
                return -Errno.EBADF;
            }
            PollWaiter waiter = ph == null || ph.address() == 0 ? null : file.arm(ph.address());
            int mask = file.device.poll(RequestCaller.current(Fuse2.context(), this), waiter);
            reventsp.putInt(0, mask);
            return 0;
        } catch (Throwable t) {
            return failed("poll", t);
        }
    }

    /** FUSE refuses errors outside 1..511. */
    static int errno(int code) {
        return code > 0 && code < 512 ? code : Errno.EIO;
    }

    private static int failed(String operation, Throwable t) {
        if (!Fatal.check(t, "devfs " + operation)) { // an Error stops the daemon: it would not log anyway
            LOG.log(System.Logger.Level.ERROR, "devfs " + operation + " failed", t);
        }
        return -Errno.EIO;
    }

    /** One read(2) as the device sees it. */
    record Read(Caller caller, int count, boolean nonBlocking) implements ReadRequest {
    }
}
