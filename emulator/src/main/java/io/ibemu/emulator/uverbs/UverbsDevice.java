package io.ibemu.emulator.uverbs;

import io.ibemu.devfs.device.Caller;
import io.ibemu.devfs.device.CharDevice;
import io.ibemu.devfs.device.DeviceFile;
import io.ibemu.emulator.fault.Faults;
import io.ibemu.emulator.fault.Point;
import io.ibemu.emulator.fault.ProcessFacts;
import io.ibemu.emulator.hca.AsyncEvent;
import io.ibemu.emulator.hca.Hca;
import io.ibemu.emulator.hca.HostMemory;
import io.ibemu.emulator.hca.ProcessHostMemory;
import io.ibemu.emulator.hca.VerbsOwner;
import io.ibemu.emulator.hca.Xrcd;
import io.ibemu.emulator.uverbs.provider.Driver;
import io.ibemu.emulator.uverbs.ioctl.Uapi;
import io.ibemu.emulator.uverbs.ioctl.VerbsIoctl;
import io.ibemu.kernel.Errno;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * /dev/infiniband/uverbsN of one local HCA: {@code struct ib_uverbs_device}. Each open is a
 * {@link UverbsFile}; the device keeps the list of them (uverbs_file_list) for object counts and
 * for the day the HCA goes away.
 */
public final class UverbsDevice implements CharDevice {
    /** IB_UVERBS_MAJOR and IB_UVERBS_BASE_MINOR. */
    public static final int MAJOR = 231;
    public static final int BASE_MINOR = 192;
    private static final int O_CREAT = 0100;
    private static final int O_EXCL = 0200;

    private final Hca hca;
    private final int index;
    private final List<UverbsFile> files = new CopyOnWriteArrayList<>();
    private volatile boolean gone;
    /** disassociate_srcu: commands share it, the device's removal takes it alone. */
    private final ReentrantReadWriteLock commands = new ReentrantReadWriteLock();
    private static final long COMMANDS_FINISH_MS = 5000;
    private static final System.Logger LOG = System.getLogger(UverbsDevice.class.getName());

    /** Which file and handle a model object belongs to, for routing its async events. */
    /** Who an object's events go to: its context's default async file, or the EVENT_FD it was created with. */
    private record Owner(UverbsFile file, UObject<?> object, EventFile events) {
    }

    private final Map<Object, Owner> owners = new ConcurrentHashMap<>();
    /** Shared XRC domains by the inode of the file that names them (ib_uverbs_device.xrcd_tree). */
    private final Map<String, XrcdShare> sharedXrcds = new HashMap<>(); // guarded by itself
    private final Map<Xrcd, String> xrcdInodes = new ConcurrentHashMap<>();

    private static final class XrcdShare {
        final Xrcd xrcd;
        int users;

        XrcdShare(Xrcd xrcd) {
            this.xrcd = xrcd;
        }
    }

    private final Function<VerbsOwner, HostMemory> memory;
    /** The instance's fault rules, consulted before each command or method acts. */
    private final Faults faults;
    /** {@link #admit} as the ioctl dispatch asks it: made once, not per call. */
    final VerbsIoctl.Gate gate = this::admit;
    private final ProviderProfile profile;
    private final Driver driver;
    /** The ioctl tree the device serves; null for a write()-only kernel. */
    private final Uapi<UverbsFile> uapi;

    /** The device of {@code hca}; registered regions are the registering process's own memory. */
    public UverbsDevice(Hca hca, int index) {
        this(hca, index, KernelAbi.newest());
    }

    /** The device of {@code hca} presenting {@code abi}'s verbs ABI. */
    public UverbsDevice(Hca hca, int index, KernelAbi abi) {
        this(hca, index, owner -> new ProcessHostMemory(owner.pid()), abi);
    }

    /** With {@code memory} giving each registering process's memory as the HCA reaches it. */
    public UverbsDevice(Hca hca, int index, Function<VerbsOwner, HostMemory> memory) {
        this(hca, index, memory, KernelAbi.newest());
    }

    public UverbsDevice(Hca hca, int index, Function<VerbsOwner, HostMemory> memory, KernelAbi abi) {
        this(hca, index, memory, abi, ProviderProfile.DEFAULT, new Faults());
    }

    /** With {@code memory} as above, serving {@code profile}'s provider. */
    public UverbsDevice(Hca hca, int index, Function<VerbsOwner, HostMemory> memory, ProviderProfile profile) {
        this(hca, index, memory, KernelAbi.newest(), profile, new Faults());
    }

    /**
     * The device presenting {@code abi} to {@code profile}'s provider, whose commands and methods
     * {@code faults} may fail before they act.
     */
    public UverbsDevice(Hca hca, int index, KernelAbi abi, ProviderProfile profile, Faults faults) {
        this(hca, index, owner -> new ProcessHostMemory(owner.pid()), abi, profile, faults);
    }

    private UverbsDevice(Hca hca, int index, Function<VerbsOwner, HostMemory> memory, KernelAbi abi,
                         ProviderProfile profile, Faults faults) {
        this.uapi = abi.tree();
        this.faults = faults;
        faults.offer(Point.UVERBS, verbs(uapi));
        this.hca = hca;
        this.index = index;
        this.memory = memory;
        this.profile = profile;
        this.driver = profile.driver();
        hca.addEventSink(this::event);
        // ib_mad_port_open allocates a PD and a CQ per port at registration: they hold the first ids
        reserveResourceIds(ObjectType.PD, hca.local().node().portCount());
        reserveResourceIds(ObjectType.CQ, hca.local().node().portCount());
    }

    /**
     * The ioctl methods that are the verbs of write commands, by the write command's name: what a
     * fault rule names, whichever path libibverbs takes (rdma-core's execute_cmd_write or ioctl).
     */
    private static final Map<String, String> SAME_VERB = Map.ofEntries(Map.entry("CQ_CREATE", "CREATE_CQ"),
            Map.entry("CQ_DESTROY", "DESTROY_CQ"), Map.entry("QP_CREATE", "CREATE_QP"),
            Map.entry("QP_DESTROY", "DESTROY_QP"), Map.entry("SRQ_CREATE", "CREATE_SRQ"),
            Map.entry("SRQ_DESTROY", "DESTROY_SRQ"), Map.entry("PD_DESTROY", "DEALLOC_PD"),
            Map.entry("AH_DESTROY", "DESTROY_AH"), Map.entry("MR_DESTROY", "DEREG_MR"),
            Map.entry("MW_DESTROY", "DEALLOC_MW"), Map.entry("XRCD_DESTROY", "CLOSE_XRCD"));

    /**
     * The fault point of every command and method, checked after the request was read and before
     * anything changes (INVOKE_WRITE is checked as the write command it carries).
     */
    void admit(String name, Caller caller) throws Errno {
        if (!faults.none() && !name.equals("INVOKE_WRITE")) {
            faults.failCall(Point.UVERBS, SAME_VERB.getOrDefault(name, name),
                    new ProcessFacts(caller.tid(), Map.of("dev", hca.local().name())));
        }
    }

    /** The names rules may use: the write commands (an extended one as its plain verb) and the ioctl methods. */
    private static java.util.Set<String> verbs(Uapi<UverbsFile> uapi) {
        java.util.Set<String> names = new java.util.TreeSet<>(Commands.verbs());
        if (uapi != null) {
            uapi.objects().values().forEach(o -> o.methods().values()
                    .forEach(m -> names.add(SAME_VERB.getOrDefault(m.name(), m.name()))));
        }
        names.remove("INVOKE_WRITE");
        return names;
    }

    /** The ioctl tree, or null when the device serves write() only. */
    Uapi<UverbsFile> uapi() {
        return uapi;
    }

    long driverId() {
        return profile.driverId();
    }

    HostMemory memoryOf(VerbsOwner owner) {
        return memory.apply(owner);
    }

    /**
     * ib_uverbs_async_handler: QP, CQ and SRQ events go to the owning context with the object's
     * user_handle; port events to every context of the device with the port number.
     */
    private void event(AsyncEvent e) {
        int type = e.type().code();
        if (e.element() instanceof Integer port) {
            for (UverbsFile f : files) {
                UverbsFile.Context c = f.context();
                if (c != null) {
                    c.asyncEvent(port, type, null);
                }
            }
            return;
        }
        Owner o = owners.get(e.element());
        if (o == null) {
            return;
        }
        if (o.events() != null) {
            o.events().asyncEvent(o.object().userHandle(), type, o.object()); // uevent.event_file
            return;
        }
        UverbsFile.Context c = o.file().context();
        if (c != null) {
            c.asyncEvent(o.object().userHandle(), type, o.object());
        }
    }

    void track(Object model, UverbsFile file, UObject<?> object) {
        track(model, file, object, null);
    }

    /** As {@link #track(Object, UverbsFile, UObject)}, its events to {@code events} when not null. */
    void track(Object model, UverbsFile file, UObject<?> object, EventFile events) {
        owners.put(model, new Owner(file, object, events));
    }

    void untrack(Object model) {
        owners.remove(model);
    }

    /**
     * ib_uverbs_open_xrcd: fd -1 is a private domain; otherwise the domain of the fd's inode,
     * created only with O_CREAT (EAGAIN otherwise), refused with O_EXCL when it exists. An fd
     * the caller does not have: EBADF.
     */
    Xrcd openXrcd(Caller caller, int fd, int oflags) throws Errno {
        if (fd == -1) {
            return hca.openXrcd(Owners.of(caller));
        }
        String inode = inodeOf(caller, fd);
        synchronized (sharedXrcds) {
            XrcdShare share = sharedXrcds.get(inode);
            if (share == null) {
                if ((oflags & O_CREAT) == 0) {
                    throw Errno.of(Errno.EAGAIN); // ib_uverbs_open_xrcd: "need CREATE flag"
                }
                share = new XrcdShare(hca.openXrcd(Owners.of(caller)));
                sharedXrcds.put(inode, share);
                xrcdInodes.put(share.xrcd, inode);
            } else if ((oflags & O_EXCL) != 0) {
                throw Errno.of(Errno.EINVAL);
            }
            share.users++;
            return share.xrcd;
        }
    }

    /** A file lets go of a domain; a shared one is destroyed with its last user. */
    void closeXrcd(Xrcd xrcd) throws Errno {
        String inode = xrcdInodes.get(xrcd);
        if (inode == null) {
            hca.close(xrcd);
            return;
        }
        synchronized (sharedXrcds) {
            XrcdShare share = sharedXrcds.get(inode);
            if (share != null && share.users > 1) {
                share.users--;
                return;
            }
            hca.close(xrcd);
            sharedXrcds.remove(inode);
            xrcdInodes.remove(xrcd);
        }
    }

    /** The device and inode of the caller's open file {@code fd}, read through /proc/TID/fd. */
    private static String inodeOf(Caller caller, int fd) throws Errno {
        try {
            Object key = Files.readAttributes(Path.of("/proc", Integer.toString(caller.tid()), "fd",
                    Integer.toString(fd)), BasicFileAttributes.class).fileKey();
            if (key == null) {
                throw Errno.of(Errno.EBADF);
            }
            return key.toString();
        } catch (IOException e) {
            throw Errno.of(Errno.EBADF);
        }
    }

    public Hca hca() {
        return hca;
    }

    /** The provider profile the device presents (abi_version, the driver half). */
    public ProviderProfile profile() {
        return profile;
    }

    Driver driver() {
        return driver;
    }

    public int minor() {
        return BASE_MINOR + index;
    }

    @Override
    public DeviceFile open(Caller caller, int openFlags) throws Errno {
        if (gone) {
            throw Errno.of(Errno.EIO); // ib_uverbs_open after the ib_device went: EIO
        }
        UverbsFile file = new UverbsFile(this);
        files.add(file);
        return file;
    }

    /**
     * The HCA is unregistered (ib_uverbs_free_hw_resources): once the running commands are done,
     * every open file's objects are destroyed at once, its context gets IB_EVENT_DEVICE_FATAL on
     * its async queue, then event reads end with EIO and every further command fails with EIO;
     * the files stay open until their owners close them.
     */
    public void disassociate() {
        // uverbs_disassociate_api_pre: no command starts from now on, and those running finish first
        boolean quiet = false;
        try {
            quiet = commands.writeLock().tryLock(COMMANDS_FINISH_MS, TimeUnit.MILLISECONDS);
            gone = true;
        } catch (InterruptedException e) {
            gone = true;
            Thread.currentThread().interrupt();
        } finally {
            if (quiet) {
                commands.writeLock().unlock();
            } else {
                LOG.log(System.Logger.Level.WARNING, "uverbs{0}: removed while a command still ran", index);
            }
        }
        for (UverbsFile f : files) {
            f.disassociate();
        }
    }

    /** Held (shared) while a command runs, so that {@link #disassociate} waits for those running. */
    Lock commandRunning() {
        return commands.readLock();
    }

    void closed(UverbsFile file) {
        files.remove(file);
    }

    public boolean hasOpenFiles() {
        return !files.isEmpty();
    }

    boolean isGone() {
        return gone;
    }

    /**
     * One user object as the kernel's restrack lists it: its id (xa_alloc_cyclic per device and
     * type, the QPN for a QP), the model object, the id of its file's context (ctxn).
     */
    public record Resource(ObjectType type, int id, Object object, int contextId) {
    }

    /** Restrack ids: the next per type (index: ObjectType ordinal; the last: contexts) and those given. */
    private final int[] nextIds = new int[ObjectType.values().length + 1];
    private final Map<Object, Integer> resourceIds = java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    /** The ids the kernel's own objects take first (ib_mad's PD and CQ per port): user ids start after. */
    public synchronized void reserveResourceIds(ObjectType type, int count) {
        nextIds[type.ordinal()] = Math.max(nextIds[type.ordinal()], count);
    }

    /** rdma_restrack_add: a new object (or a context, type null) gets the next id of its type. */
    synchronized void assignResourceId(ObjectType type, Object object) {
        int slot = type == null ? nextIds.length - 1 : type.ordinal();
        resourceIds.put(object, nextIds[slot]++);
    }

    /** The objects of {@code type} every open file holds, by restrack id. */
    public List<Resource> resources(ObjectType type) {
        List<Resource> list = new java.util.ArrayList<>();
        for (UverbsFile f : files) {
            UverbsFile.Context c = f.context();
            Integer ctx = c == null ? null : resourceIds.get(c);
            for (UObject<?> u : f.objects.newestFirst(o -> o.type() == type)) {
                Object model = u.object();
                Integer id = resourceIds.get(model);
                if (model instanceof io.ibemu.emulator.hca.QueuePair qp) {
                    id = qp.qpNum();
                }
                if (id != null) {
                    list.add(new Resource(type, id, model, ctx == null ? -1 : ctx));
                }
            }
        }
        list.sort(java.util.Comparator.comparingInt(Resource::id));
        return list;
    }

    /** A ucontext as restrack lists it: ctxn and the process that made it. */
    public record ContextEntry(int id, int ownerPid) {
    }

    /** The contexts (ctx restrack entries) of the device's open files, by id. */
    public List<ContextEntry> contexts() {
        List<ContextEntry> list = new java.util.ArrayList<>();
        for (UverbsFile f : files) {
            UverbsFile.Context c = f.context();
            Integer id = c == null ? null : resourceIds.get(c);
            if (id != null) {
                list.add(new ContextEntry(id, c.ownerPid()));
            }
        }
        list.sort(java.util.Comparator.comparingInt(ContextEntry::id));
        return list;
    }

    /** The objects every open file holds, by type: what `ibemu ctl objects` prints. */
    public Map<String, Integer> objectCounts() {
        Map<String, Integer> counts = new java.util.LinkedHashMap<>();
        Map<ObjectType, Integer> sum = new EnumMap<>(ObjectType.class);
        for (UverbsFile f : files) {
            f.counts().forEach((t, n) -> sum.merge(t, n, Integer::sum));
        }
        counts.put("files", files.size());
        for (ObjectType t : ObjectType.values()) {
            counts.put(t.label(), sum.getOrDefault(t, 0));
        }
        return counts;
    }
}
