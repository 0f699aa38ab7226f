package io.ibemu.devfs;

import io.ibemu.devfs.device.Caller;
import io.ibemu.devfs.device.CharDevice;
import io.ibemu.devfs.device.DeviceFile;
import io.ibemu.devfs.device.IoctlResult;
import io.ibemu.devfs.device.PollWaiter;
import io.ibemu.devfs.device.ReadRequest;
import io.ibemu.devfs.device.ReadResult;
import io.ibemu.devfs.fuse.Channel;
import io.ibemu.devfs.fuse.FuseIn;
import io.ibemu.devfs.fuse.FuseOut;
import io.ibemu.devfs.fuse.Opcode;
import io.ibemu.devfs.fuse.Request;
import io.ibemu.devfs.fuse.Session;
import io.ibemu.kernel.Errno;
import io.ibemu.kernel.Fatal;
import io.ibemu.kernel.ProcessMemory;

import java.nio.ByteBuffer;
import java.util.Map;

/**
 * The per-open-file requests of a directly served FUSE or CUSE channel (OPEN's device side, READ,
 * WRITE, IOCTL, POLL, FLUSH, RELEASE) on the {@link DeviceFile}/{@link OpenFile} model: split
 * syscalls joined, restricted ioctls whose errors leave the caller's buffer alone, one poll
 * handle ({@code kh}) per file.
 * The front that owns the channel resolves OPEN to a {@link CharDevice} and answers the rest.
 */
final class DeviceRequests implements PollNotice {

    private static final System.Logger LOG = System.getLogger(DeviceRequests.class.getName());
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
    private static final int O_NONBLOCK = 04000;
    private static final int IOC_WRITE = 1;
    private static final int IOC_READ = 2;
    private static final byte[] NOTHING = new byte[0];
    /** As the kernel's umad/uverbs stream_open: no f_pos lock around a read that blocks; writers in parallel. */
    static final int OPEN_FLAGS = FuseOut.FOPEN_DIRECT_IO | FuseOut.FOPEN_NONSEEKABLE | FuseOut.FOPEN_STREAM
            | FuseOut.FOPEN_PARALLEL_DIRECT_WRITES;

    final HandleTable handles = new HandleTable();
    private final Channel channel;
    private volatile boolean closing;
    private volatile java.util.function.Consumer<String> releaseListener;

    DeviceRequests(Channel channel) {
        this.channel = channel;
    }

    /** The handlers of this class, by opcode, for a {@link Session}'s table. */
    Map<Integer, Session.Handler> handlers() {
        return Map.of(Opcode.READ, this::read, Opcode.WRITE, this::write, Opcode.IOCTL, this::ioctl,
                Opcode.POLL, this::poll, Opcode.FLUSH, this::flush, Opcode.RELEASE, this::release);
    }

    @Override
    public boolean closing() {
        return closing;
    }

    /** From now on devices see every caller as interrupted and no poll notification is sent. */
    void startClosing() {
        closing = true;
        for (OpenFile file : handles.all()) {
            file.retirePoll();
        }
    }

    @Override
    public void notify(long kh) {
        channel.notifyPoll(kh);
    }

    @Override
    public void destroy(long kh) {
        // a kh is the kernel's: nothing to free
    }

    /** The caller of {@code request}, as devices see it. */
    RequestCaller caller(Request request) {
        return RequestCaller.of(request, this);
    }

    /** OPEN of {@code device} (entry {@code name}): the new file's handle, not yet answered. */
    long open(Request request, CharDevice device, String name) throws Errno {
        if (closing || Fatal.raised()) {
            throw Errno.of(Errno.ENODEV);
        }
        int flags = FuseIn.Open.decode(request.in(), Request.BODY).flags();
        DeviceFile file = device.open(caller(request), flags);
        if (file == null) {
            throw new IllegalStateException(name + ": open returned no file");
        }
        return handles.add(new OpenFile(file, name, this));
    }

    /** A file opened elsewhere ({@link CuseDevice}'s hand-off) taken as this OPEN's: its handle, not yet answered. */
    long adopt(DeviceFile file, String name) throws Errno {
        if (closing || Fatal.raised()) {
            throw Errno.of(Errno.ENODEV); // the supervisor releases the file it made
        }
        return handles.add(new OpenFile(file, name, this));
    }

    /** Answers an OPEN with {@code fh}, as a character device. */
    static void replyOpen(Request request, long fh) {
        request.reply(FuseOut.open(request.out(), Request.REPLY, fh, OPEN_FLAGS));
    }

    private OpenFile file(long fh) throws Errno {
        OpenFile file = handles.get(fh);
        if (file == null) {
            throw Errno.of(Errno.EBADF);
        }
        return file;
    }

    /** Every close of a descriptor (filp_close -> fuse_flush); for a device that asks, the last releases the file. */
    private void flush(Request request) {
        OpenFile file = handles.get(FuseIn.Flush.decode(request.in(), Request.BODY).fh());
        if (file != null) {
            file.device.flush();
            if (file.device.releaseAtLastClose() && !OpenDescriptors.anyLinkTo(file.name)) {
                file.release();
            }
        }
        request.reply(0);
    }

    private void release(Request request) {
        OpenFile file = handles.remove(FuseIn.Release.decode(request.in(), Request.BODY).fh());
        if (file != null) {
            released(file);
            file.release();
        }
        request.reply(0);
    }

    /** Before a released file's device forgets it: the front's bookkeeping (entry names). */
    private void released(OpenFile file) {
        java.util.function.Consumer<String> listener = releaseListener;
        if (listener != null) {
            listener.accept(file.name);
        }
    }

    /** {@code listener} gets the entry name of each file RELEASE removes. */
    void onRelease(java.util.function.Consumer<String> listener) {
        this.releaseListener = listener;
    }

    // ---- read and write: one whole syscall as the device sees it, FUSE's pieces joined ----

    private void read(Request request) throws Errno {
        FuseIn.Read in = FuseIn.Read.decode(request.in(), Request.BODY);
        OpenFile file = file(in.fh());
        if (Fatal.raised()) { // stopping whole: answer without allocating
            throw Errno.of(Errno.EIO);
        }
        int size = Math.min(in.size(), request.replyCapacity());
        SplitSyscall split = file.takeSplit(request.pid(), false);
        if (split != null && split.follows(in.offset(), size)) {
            request.reply(nextPiece(file, split, request.out(), size));
            return;
        }
        RequestCaller caller = caller(request);
        BlockedSyscall syscall = size > SPLIT_CANDIDATE ? BlockedSyscall.ofServed(caller.tid()) : null;
        int count = size;
        if (syscall != null && syscall.isRead() && syscall.count() > size) {
            count = (int) Math.min(syscall.count(), MAX_READ_COUNT);
        }
        ReadResult result = file.device.read(new Read(caller, count, (in.flags() & O_NONBLOCK) != 0));
        byte[] data = result.data() == null ? NOTHING : result.data();
        if (result.failed()) {
            if (data.length > 0) {
                placeInBuffer(caller, syscall, data, count);
            }
            throw Errno.of(errno(result.errno()));
        }
        int available = Math.min(data.length, count);
        int reply = Math.min(available, size);
        request.out().put(Request.REPLY, data, 0, reply);
        SplitSyscall rest = SplitSyscall.after(caller.tid(), false, data, count, available, reply, size, in.offset());
        if (rest != null) {
            file.putSplit(rest);
        }
        request.reply(reply);
    }

    private void write(Request request) throws Errno {
        FuseIn.Write in = FuseIn.Write.decode(request.in(), Request.BODY);
        OpenFile file = file(in.fh());
        if (Fatal.raised()) {
            throw Errno.of(Errno.EIO);
        }
        int size = Math.min(in.size(), request.bodyLength() - FuseIn.Write.DATA);
        SplitSyscall split = file.takeSplit(request.pid(), true);
        if (split != null && split.follows(in.offset(), size)) {
            request.reply(FuseOut.write(request.out(), Request.REPLY, nextPiece(file, split, null, size)));
            return;
        }
        RequestCaller caller = caller(request);
        byte[] data = size > SPLIT_CANDIDATE ? wholeWrite(caller, size) : null;
        if (data == null) {
            data = new byte[size];
            request.in().get(Request.BODY + FuseIn.Write.DATA, data, 0, size);
        }
        int count = data.length;
        int written = file.device.write(caller, ByteBuffer.wrap(data), in.flags());
        int accepted = Math.max(0, Math.min(written, count));
        int reply = Math.min(accepted, size);
        SplitSyscall rest = SplitSyscall.after(caller.tid(), true, null, count, accepted, reply, size, in.offset());
        if (rest != null) {
            file.putSplit(rest);
        }
        request.reply(FuseOut.write(request.out(), Request.REPLY, reply));
    }

    /** A later request of a split syscall, served from what the device already answered; {@code out} null for a write. */
    private static int nextPiece(OpenFile file, SplitSyscall split, ByteBuffer out, int size) {
        int from = split.replied();
        int reply = split.nextReply(size);
        if (out != null && reply > 0) {
            out.put(Request.REPLY, split.data, from, reply);
        }
        if (split.continuesAfter(reply, size)) {
            file.putSplit(split);
        }
        return reply;
    }

    // ---- ioctl and poll ----

    /**
     * A restricted ioctl: the kernel copied in {@code _IOC_SIZE} bytes for {@code _IOC_WRITE} and
     * takes exactly that many back for {@code _IOC_READ}. An error goes back alone (fuse_do_ioctl
     * copies any data a reply carries to the caller before returning its result), unless the
     * device wrote and still failed (umad's REGISTER_AGENT2).
     */
    private void ioctl(Request request) throws Errno {
        FuseIn.Ioctl in = FuseIn.Ioctl.decode(request.in(), Request.BODY);
        OpenFile file = file(in.fh());
        if (Fatal.raised()) {
            throw Errno.of(Errno.EIO);
        }
        int cmd = in.cmd();
        int direction = cmd >>> 30;
        int size = (cmd >>> 16) & 0x3fff;
        byte[] input = NOTHING;
        if ((direction & IOC_WRITE) != 0 && size > 0) {
            input = new byte[Math.min(size, in.inSize())];
            request.in().get(Request.BODY + FuseIn.Ioctl.DATA, input, 0, input.length);
        }
        IoctlResult result = file.device.ioctl(caller(request), cmd, in.arg(), input);
        byte[] out = result.out() == null ? NOTHING : result.out();
        boolean readsBack = (direction & IOC_READ) != 0 && size > 0;
        if (result.errno() != 0 && !(readsBack && out.length > 0)) {
            throw Errno.of(errno(result.errno()));
        }
        int value = result.errno() != 0 ? -errno(result.errno()) : result.value();
        ByteBuffer reply = request.out();
        int at = Request.REPLY + FuseOut.ioctl(reply, Request.REPLY, value, 0, 0, 0);
        int length = 0;
        if (readsBack) {
            length = Math.min(size, request.replyCapacity() - FuseOut.IOCTL.size());
            // as libfuse's buffer: the input first (_IOWR), zeros for a plain _IOR, the device's bytes over it
            for (int i = 0; i < length; i++) {
                reply.put(at + i, i < input.length ? input[i] : 0);
            }
            reply.put(at, out, 0, Math.min(out.length, length));
        }
        request.reply(FuseOut.IOCTL.size() + length);
    }

    private void poll(Request request) throws Errno {
        FuseIn.Poll in = FuseIn.Poll.decode(request.in(), Request.BODY);
        OpenFile file = file(in.fh());
        PollWaiter waiter = in.scheduleNotify() ? file.arm(in.kh()) : null;
        int mask = file.device.poll(caller(request), waiter);
        request.reply(FuseOut.poll(request.out(), Request.REPLY, mask));
    }

    /** A read that fails after writing into the buffer: FUSE replies carry data or an errno. */
    static void placeInBuffer(RequestCaller caller, BlockedSyscall syscall, byte[] data, int count)
            throws Errno {
        BlockedSyscall read = syscall != null ? syscall : BlockedSyscall.ofServed(caller.tid());
        if (read == null || !read.isRead()) {
            LOG.log(System.Logger.Level.WARNING, "{0}: cannot find the read buffer, {1} bytes dropped",
                    caller, data.length);
            return;
        }
        int length = (int) Math.min(data.length, Math.min(count, read.count()));
        ProcessMemory.write(caller.tid(), read.buffer(), data, 0, length);
    }

    /**
     * The whole buffer of a write(2) FUSE splits, read from the caller at its first piece so the
     * device sees it once and its errno reaches the caller; null when it is not split. As the
     * kernel's copy_from_user of the whole buffer, a fault anywhere in it is EFAULT; a write
     * past the join limit is refused whole (ENOMEM, an allocation that fails), never cut short.
     */
    static byte[] wholeWrite(RequestCaller caller, int size) throws Errno {
        BlockedSyscall syscall = BlockedSyscall.ofServed(caller.tid());
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

    /** FUSE refuses errors outside 1..511. */
    static int errno(int code) {
        return code > 0 && code < 512 ? code : Errno.EIO;
    }

    /** One read(2) as the device sees it. */
    record Read(Caller caller, int count, boolean nonBlocking) implements ReadRequest {
    }
}
