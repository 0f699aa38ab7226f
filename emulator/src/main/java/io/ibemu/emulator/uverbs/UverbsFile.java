package io.ibemu.emulator.uverbs;

import io.ibemu.devfs.device.Caller;
import io.ibemu.devfs.device.MappableFile;
import io.ibemu.devfs.device.IoctlResult;
import io.ibemu.devfs.device.Poll;
import io.ibemu.devfs.device.PollWaiter;
import io.ibemu.devfs.device.ReadRequest;
import io.ibemu.devfs.device.ReadResult;
import io.ibemu.devfs.device.SharedMemory;
import io.ibemu.emulator.hca.AsyncEvent;
import io.ibemu.kernel.CField;
import io.ibemu.emulator.uverbs.ioctl.IoctlHeader;
import io.ibemu.emulator.uverbs.ioctl.Uapi;
import io.ibemu.emulator.uverbs.ioctl.UapiIds;
import io.ibemu.emulator.uverbs.ioctl.VerbsIoctl;
import io.ibemu.kernel.Errno;
import io.ibemu.emulator.uverbs.provider.Driver;
import io.ibemu.emulator.uverbs.provider.QueueMemory;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;

/**
 * One open of /dev/infiniband/uverbsN: {@code struct ib_uverbs_file}. It decodes each write() as
 * ib_uverbs_write and verify_hdr do, runs the command from {@link Commands}, and keeps the
 * file's objects in one {@link ObjectTable}. The last close destroys them, newest first, retrying
 * those still in use until none is left (uverbs_destroy_ufile_hw with RDMA_REMOVE_CLOSE); the
 * device's removal does the same at once (RDMA_REMOVE_DRIVER_REMOVE, {@link #disassociate}).
 */
final class UverbsFile implements MappableFile {
    private static final System.Logger LOG = System.getLogger(UverbsFile.class.getName());

    private static final CField HDR_COMMAND = Abi.CMD_HDR.field("command");
    private static final CField HDR_IN_WORDS = Abi.CMD_HDR.field("in_words");
    private static final CField HDR_OUT_WORDS = Abi.CMD_HDR.field("out_words");
    private static final CField EX_RESPONSE = Abi.EX_CMD_HDR.field("response");
    private static final CField RESPONSE = Abi.RESPONSE_ONLY.field("response");
    private static final CField EX_PROVIDER_IN = Abi.EX_CMD_HDR.field("provider_in_words");
    private static final CField EX_PROVIDER_OUT = Abi.EX_CMD_HDR.field("provider_out_words");
    private static final CField EX_RESERVED = Abi.EX_CMD_HDR.field("cmd_hdr_reserved");
    private static final int HDR = Abi.CMD_HDR.size();
    private static final int EX_HDR = Abi.EX_CMD_HDR.size();
    /** The highest user address (x86_64 TASK_SIZE): access_ok refuses what reaches past it. */
    private static final long TASK_SIZE = 0x00007ffffffff000L;

    final UverbsDevice device;
    final ObjectTable objects;
    private final FileObjects uobjects = new FileObjects(this);
    /** The completion channels this context created, by the descriptor number the caller got. */
    final Map<Integer, EventFile> channels = new ConcurrentHashMap<>();
    /** Every async event file of the context (GET_CONTEXT's, each ASYNC_EVENT/ALLOC's), by descriptor. */
    final Map<Integer, EventFile> asyncFiles = new ConcurrentHashMap<>();
    private volatile Context context;
    /** The memory this open file's mapped queues live in; null where the file cannot be mapped. */
    private volatile QueueMemory queueMemory;
    private boolean released; // guarded by this

    /**
     * What GET_CONTEXT creates: ib_ucontext, and the file's default async event file
     * (default_async_file), which write()'s GET_CONTEXT makes at once and the ioctl path makes
     * by the first ASYNC_EVENT/ALLOC (ib_uverbs_init_async_event_file).
     */
    static final class Context {
        private final int ownerPid;
        private volatile EventFile asyncEvents;

        Context(EventFile asyncEvents, int ownerPid) {
            this.asyncEvents = asyncEvents;
            this.ownerPid = ownerPid;
        }

        int ownerPid() {
            return ownerPid;
        }

        /** The default async event file, or null before one was allocated. */
        EventFile asyncEvents() {
            return asyncEvents;
        }

        /** The first async event file becomes the default: events go there. */
        synchronized void adoptAsyncEvents(EventFile f) {
            if (asyncEvents == null) {
                asyncEvents = f;
            }
        }

        /** An event for the default async event file, if there is one yet. */
        void asyncEvent(long element, int type, UObject<?> object) {
            EventFile f = asyncEvents;
            if (f != null) {
                f.asyncEvent(element, type, object);
            }
        }
    }

    UverbsFile(UverbsDevice device) {
        this.device = device;
        this.objects = new ObjectTable(device::assignResourceId);
    }

    /** The file's memory, kept only by profiles that map queues (for the others every mmap finds nothing pending). */
    @Override
    public void share(SharedMemory memory) {
        if (device.profile().mapsQueues()) {
            queueMemory = new QueueMemory(memory);
        }
    }

    /**
     * ib_uverbs_mmap: the device removed, EIO; no context yet, EINVAL (ib_uverbs_get_ucontext_file);
     * then the driver's pending list decides (rvt_mmap, rxe_mmap).
     */
    @Override
    public void mmap(long offset, long length, int prot, int flags) throws Errno {
        if (device.isGone()) {
            throw Errno.of(Errno.EIO);
        }
        QueueMemory m = queueMemory;
        if (m == null || context == null) {
            throw Errno.of(Errno.EINVAL);
        }
        m.mmap(offset, length);
    }

    QueueMemory queueMemory() {
        return queueMemory;
    }

    Driver driver() {
        return device.driver();
    }

    Context context() {
        return context;
    }

    /** The context once GET_CONTEXT made it; EINVAL before (ib_uverbs_get_ucontext). */
    Context requireContext() throws Errno {
        Context c = context;
        if (c == null) {
            throw Errno.of(Errno.EINVAL);
        }
        return c;
    }

    synchronized void setContext(Context c) throws Errno {
        if (context != null || released) {
            throw Errno.of(Errno.EINVAL);
        }
        context = c;
        device.assignResourceId(null, c);
    }

    @Override
    public int write(Caller caller, ByteBuffer data, int fileFlags) throws Errno {
        int count = data.remaining();
        if (count < HDR) {
            throw Errno.of(Errno.EINVAL);
        }
        byte[] buf = new byte[count];
        data.get(buf);
        long command = HDR_COMMAND.get(buf, 0);
        WriteCommand spec = Commands.lookup(command);
        int inWords = (int) HDR_IN_WORDS.get(buf, 0);
        int outWords = (int) HDR_OUT_WORDS.get(buf, 0);
        Command c = spec.extended() ? extended(caller, spec, buf, inWords, outWords)
                : plain(caller, spec, buf, inWords, outWords);
        Lock running = device.commandRunning();
        running.lock();
        try {
            if (device.isGone()) {
                throw Errno.of(Errno.EIO); // ib_uverbs_free_hw_resources: the device was removed
            }
            run(c);
        } finally {
            running.unlock();
        }
        return count;
    }

    /** A write command past its framing, whichever path brought it (write() or INVOKE_WRITE). */
    void run(Command c) throws Errno {
        WriteCommand spec = c.spec;
        if (spec.context() == WriteCommand.ContextUse.BEFORE_REQUEST) {
            requireContext();
        }
        if (spec != Commands.NOT_SUPPORTED && !spec.inPieces()) {
            requireClearTail(c);
        }
        if (spec.context() == WriteCommand.ContextUse.AFTER_REQUEST) {
            requireContext();
        }
        device.admit(spec.name(), c.caller);
        spec.handler().run(c);
    }

    /**
     * uverbs_request, the first thing every handler does: the request struct is copied, and bytes
     * the caller wrote past it must be zero (ib_is_buffer_cleared), else EOPNOTSUPP, before any
     * lookup or context check.
     */
    private static void requireClearTail(Command c) throws Errno {
        for (int i = c.spec.request().size(); i < c.inLength; i++) {
            if (c.in[i] != 0) {
                throw Errno.of(Errno.EOPNOTSUPP);
            }
        }
    }

    /** verify_hdr for a command without FLAG_EXTENDED, then the udata split of ib_uverbs_write. */
    private Command plain(Caller caller, WriteCommand spec, byte[] buf, int inWords, int outWords) throws Errno {
        int count = buf.length;
        if (inWords * 4 != count) {
            throw Errno.of(Errno.EINVAL);
        }
        if (count < spec.requestSize() + HDR) {
            throw Errno.of(Errno.ENOSPC);
        }
        if (outWords * 4 < spec.responseSize()) {
            throw Errno.of(Errno.ENOSPC);
        }
        // with udata, ucore is exactly the core structs and the driver's part follows each
        int inLength = spec.udata() ? spec.requestSize() : count - HDR;
        long response = 0;
        int outLength = 0;
        if (spec.hasResponse()) {
            response = RESPONSE.get(buf, HDR);
            outLength = spec.udata() ? spec.responseSize() : outWords * 4;
        }
        byte[] udataIn = spec.udata() ? Arrays.copyOfRange(buf, HDR + inLength, count) : Command.NOTHING;
        int udataOutLength = spec.udata() && spec.hasResponse() ? Math.max(0, outWords * 4 - outLength) : 0;
        return new Command(this, caller, spec, Arrays.copyOfRange(buf, HDR, count), inLength, response, outLength,
                udataIn, response + outLength, udataOutLength);
    }

    /** verify_hdr for FLAG_EXTENDED: lengths in 8-byte words after both headers. */
    private Command extended(Caller caller, WriteCommand spec, byte[] buf, int inWords, int outWords)
            throws Errno {
        int count = buf.length;
        if (count < HDR + EX_HDR) {
            throw Errno.of(Errno.EINVAL);
        }
        int providerIn = (int) EX_PROVIDER_IN.get(buf, HDR);
        int providerOut = (int) EX_PROVIDER_OUT.get(buf, HDR);
        long response = EX_RESPONSE.get(buf, HDR);
        int body = count - HDR - EX_HDR;
        if ((inWords + providerIn) * 8 != body) {
            throw Errno.of(Errno.EINVAL);
        }
        // verify_hdr's ENOSPC checks never fire here: uapi_create_write fills req_size and
        // resp_size only for plain methods (Debian's 6.1 kernel takes in_words 0 and out_words 1)
        if (EX_RESERVED.get(buf, HDR) != 0) {
            throw Errno.of(Errno.EINVAL);
        }
        if (response != 0) {
            if (outWords == 0 && providerOut == 0) {
                throw Errno.of(Errno.EINVAL);
            }
            long end = response + (long) (outWords + providerOut) * 8;
            if (response < 0 || end > TASK_SIZE || end < response) {
                throw Errno.of(Errno.EFAULT);
            }
        } else if (outWords != 0 || providerOut != 0) {
            throw Errno.of(Errno.EINVAL);
        }
        // uverbs_request: a request shorter than the struct reads as zeros past its end
        byte[] in = new byte[Math.max(inWords * 8, spec.request().size())];
        System.arraycopy(buf, HDR + EX_HDR, in, 0, inWords * 8);
        byte[] udataIn = Arrays.copyOfRange(buf, HDR + EX_HDR + inWords * 8, count);
        return new Command(this, caller, spec, in, inWords * 8, response, outWords * 8, udataIn,
                response + outWords * 8L, providerOut * 8);
    }

    /** The uverbs file has no read (uverbs_fops): the VFS answers EINVAL. */
    @Override
    public ReadResult read(ReadRequest request) throws Errno {
        throw Errno.of(Errno.EINVAL);
    }

    /** Without the argument's address no attribute can be read: as a file without the ioctl path. */
    @Override
    public IoctlResult ioctl(Caller caller, int cmd, byte[] in) throws Errno {
        throw Errno.of(Errno.ENOTTY);
    }

    /**
     * ib_uverbs_ioctl: RDMA_VERBS_IOCTL runs a method of the device's tree; any other command,
     * or a device presenting a write()-only kernel, is ENOTTY (-ENOIOCTLCMD), and libibverbs
     * then uses write() for the whole context.
     */
    @Override
    public IoctlResult ioctl(Caller caller, int cmd, long arg, byte[] in) throws Errno {
        Uapi<UverbsFile> uapi = device.uapi();
        if (cmd != IoctlHeader.RDMA_VERBS_IOCTL || uapi == null) {
            throw Errno.of(Errno.ENOTTY);
        }
        Lock running = device.commandRunning();
        running.lock();
        try {
            VerbsIoctl.call(uapi, device.driverId(), this, uobjects, caller, arg, in, device.gate);
        } finally {
            running.unlock();
        }
        return IoctlResult.ok();
    }

    /** The ids of the file's objects of one ioctl object type, oldest first (ufile->uobjects). */
    List<Integer> handles(int objectId) {
        ObjectType type = ObjectType.ofUapi(objectId);
        if (type != null) {
            List<Integer> list = new ArrayList<>();
            for (UObject<?> u : objects.newestFirst(u -> u.type() == type)) {
                list.add(0, u.handle());
            }
            return list;
        }
        Map<Integer, EventFile> files = switch (objectId) {
            case UapiIds.OBJECT_ASYNC_EVENT -> asyncFiles;
            case UapiIds.OBJECT_COMP_CHANNEL -> channels;
            default -> Map.of();
        };
        return new ArrayList<>(new java.util.TreeSet<>(files.keySet()));
    }

    /** Without .poll in uverbs_fops the VFS reports the file always ready (DEFAULT_POLLMASK). */
    @Override
    public int poll(Caller caller, PollWaiter waiter) {
        return Poll.DEFAULT_MASK;
    }

    /** ib_uverbs_close: every object of the file goes, then the file leaves the device's list. */
    @Override
    public void release() {
        synchronized (this) {
            if (released) {
                return;
            }
            released = true;
        }
        destroyAll();
        device.closed(this);
    }

    /**
     * uverbs_destroy_ufile_hw(RDMA_REMOVE_DRIVER_REMOVE): the objects go now, not at close;
     * then, as uverbs_async_event_destroy_uobj, IB_EVENT_DEVICE_FATAL on the async queue, which
     * stays open until the file's release (uverbs_async_event_release, 5.7 on: a later read waits),
     * and the completion channels close (ib_uverbs_free_event_queue: readers wake and get EIO).
     * The file stays open; only its close is left to do.
     */
    void disassociate() {
        destroyObjects();
        // uverbs_async_event_destroy_uobj: every async event file gets it
        asyncFiles.values().forEach(f -> f.asyncEvent(0, AsyncEvent.Type.DEVICE_FATAL.code(), null));
        channels.values().forEach(EventFile::close);
    }

    /** At the last close: every object (none left after a disassociate), then the async queue. */
    void destroyAll() {
        destroyObjects();
        asyncFiles.values().forEach(EventFile::close);
    }

    /**
     * __uverbs_cleanup_ufile: destroy newest first; an object still used by another (a PD with
     * MRs) fails with EBUSY and is tried again in the next pass, until nothing is left. One at a
     * time per file: a close and a device removal may meet here.
     */
    private void destroyObjects() {
        synchronized (objects) {
            destroyPasses();
        }
    }

    private void destroyPasses() {
        for (int pass = 0; pass < 16 && !objects.isEmpty(); pass++) {
            List<UObject<?>> round = objects.newestFirst(u -> true);
            boolean progress = false;
            for (UObject<?> u : round) {
                try {
                    Destroy.object(this, u, true);
                    progress = true;
                } catch (Errno e) {
                    if (e.code() != Errno.EBUSY) {
                        LOG.log(System.Logger.Level.WARNING, "close: destroying {0} failed with errno {1}", u,
                                e.code());
                        objects.remove(u);
                    }
                }
            }
            if (!progress) {
                LOG.log(System.Logger.Level.ERROR, "close: {0} objects stay in use; dropping them",
                        objects.newestFirst(u -> true).size());
                for (UObject<?> u : new ArrayList<>(objects.newestFirst(u -> true))) {
                    objects.remove(u);
                }
            }
        }
    }

    /** The file's object counts by type. */
    Map<ObjectType, Integer> counts() {
        Map<ObjectType, Integer> counts = new EnumMap<>(ObjectType.class);
        for (ObjectType t : ObjectType.values()) {
            counts.put(t, objects.count(t));
        }
        return counts;
    }
}
