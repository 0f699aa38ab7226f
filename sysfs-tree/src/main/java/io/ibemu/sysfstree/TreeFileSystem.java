package io.ibemu.sysfstree;

import com.kenai.jffi.MemoryIO;
import io.ibemu.devfs.libfuse.LowLevelMount;
import io.ibemu.devfs.libfuse.LowLevelReplies;
import io.ibemu.kernel.Errno;
import io.ibemu.kernel.Fatal;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;
import jnr.ffi.Struct;
import ru.serce.jnrfuse.struct.FileStat;

/**
 * The FUSE side of a {@link SysfsTree}, on libfuse2's low-level API: the kernel's node ids are
 * the tree's inode numbers, lookups walk one map, attribute files are served with direct I/O
 * (values are never cached), and entries and attributes are cached in the kernel for
 * {@link #CACHE_SECONDS}, each change of the tree invalidating what it touched
 * ({@link KernelCache}). Every callback replies exactly once, with an errno on failure.
 */
final class TreeFileSystem implements KernelCache {

    private static final System.Logger LOG = System.getLogger(TreeFileSystem.class.getName());
    private static final MemoryIO MEMORY = MemoryIO.getInstance();
    private static final Runtime RUNTIME = Runtime.getSystemRuntime();
    /** How long the kernel keeps entries and attributes: every change invalidates, this bounds a missed one. */
    static final double CACHE_SECONDS = 10;
    private static final long ROOT_ID = 1; // FUSE_ROOT_ID
    private static final int O_ACCMODE = 3;
    private static final int O_RDONLY = 0;
    private static final int O_WRONLY = 1;
    private static final int E2BIG = 7;
    private static final int ENOTDIR = 20;
    private static final int EISDIR = 21;
    private static final int ELOOP = 40;
    /** struct fuse_file_info (fuse_common.h): flags at 0, bit fields (direct_io = bit 0) at 20, fh at 24. */
    private static final long FI_FLAGS = 0;
    private static final long FI_BITS = 20;
    private static final long FI_FH = 24;
    private static final int DIRECT_IO = 1;
    /** fuse_setattr's to_set bits (fuse_lowlevel.h). */
    private static final int SET_MODE = 1;
    private static final int SET_UID = 2;
    private static final int SET_GID = 4;
    private static final int SET_SIZE = 8;
    /** struct fuse_lowlevel_ops (FUSE 2.6, LP64): offsets of the callbacks set, and its size. */
    private static final long OPS_SIZE = 328;
    private static final long OP_INIT = 0;
    private static final long OP_LOOKUP = 16;
    private static final long OP_FORGET = 24;
    private static final long OP_GETATTR = 32;
    private static final long OP_SETATTR = 40;
    private static final long OP_READLINK = 48;
    private static final long[] OPS_EPERM = {56, 64, 72, 80, 88, 96, 104}; // mknod mkdir unlink rmdir symlink rename link
    private static final long OP_OPEN = 112;
    private static final long OP_READ = 120;
    private static final long OP_WRITE = 128;
    private static final long OP_RELEASE = 144;
    private static final long OP_READDIR = 168;
    private static final long OP_CREATE = 240;
    /** struct fuse_dirent {u64 ino; u64 off; u32 namelen; u32 type; char name[];}, 8-aligned. */
    private static final int DIRENT_NAME = 24;
    private static final int STAT_SIZE = Struct.size(new FileStat(RUNTIME));
    /** struct fuse_entry_param {ino, generation, struct stat attr, double attr_timeout, entry_timeout}. */
    private static final int ENTRY_SIZE = 16 + STAT_SIZE + 16;

    private final SysDir root;
    private final TreeContext tree;
    /** Nodes the kernel holds a node id of (looked up and not yet forgotten), by inode. */
    private final Map<Long, Known> known = new ConcurrentHashMap<>();
    private final Map<Long, OpenAttribute> openFiles = new ConcurrentHashMap<>();
    private final AtomicLong handles = new AtomicLong();
    private final CountDownLatch initialized = new CountDownLatch(1);
    /** The callbacks, kept reachable while libfuse may call them. */
    private final List<Object> callbacks = new ArrayList<>();
    private final long ops;
    private volatile LowLevelMount mount;

    /** A node the kernel knows, how many lookups it holds, and its directory's inode (for ".."). */
    private record Known(KernfsNode node, long parent, long lookups) {
    }

    TreeFileSystem(SysDir root, TreeContext tree) {
        this.root = root;
        this.tree = tree;
        ops = MEMORY.allocateMemory(OPS_SIZE, true);
        set(OP_INIT, LowLevelCallbacks.Init.class, (LowLevelCallbacks.Init) (data, conn) -> initialized.countDown());
        set(OP_LOOKUP, LowLevelCallbacks.Lookup.class, (LowLevelCallbacks.Lookup) this::lookup);
        set(OP_FORGET, LowLevelCallbacks.Forget.class, (LowLevelCallbacks.Forget) this::forget);
        set(OP_GETATTR, LowLevelCallbacks.OnInode.class, (LowLevelCallbacks.OnInode) this::getattr);
        set(OP_SETATTR, LowLevelCallbacks.Setattr.class, (LowLevelCallbacks.Setattr) this::setattr);
        set(OP_READLINK, LowLevelCallbacks.Readlink.class, (LowLevelCallbacks.Readlink) this::readlink);
        set(OP_OPEN, LowLevelCallbacks.OnInode.class, (LowLevelCallbacks.OnInode) this::open);
        set(OP_READ, LowLevelCallbacks.Read.class, (LowLevelCallbacks.Read) this::read);
        set(OP_WRITE, LowLevelCallbacks.Write.class, (LowLevelCallbacks.Write) this::write);
        set(OP_RELEASE, LowLevelCallbacks.OnInode.class, (LowLevelCallbacks.OnInode) this::release);
        set(OP_READDIR, LowLevelCallbacks.Read.class, (LowLevelCallbacks.Read) this::readdir);
        // sysfs has no create, mkdir, mknod, link, symlink, unlink, rmdir or rename: the VFS
        // refuses O_CREAT with EACCES and the others with EPERM
        LowLevelCallbacks.Refuse eperm = req -> reply(req, Errno.EPERM);
        for (long op : OPS_EPERM) {
            set(op, LowLevelCallbacks.Refuse.class, eperm);
        }
        set(OP_CREATE, LowLevelCallbacks.Refuse.class, (LowLevelCallbacks.Refuse) req -> reply(req, Errno.EACCES));
    }

    private <T> void set(long offset, Class<T> type, T callback) {
        callbacks.add(callback);
        MEMORY.putAddress(ops + offset, RUNTIME.getClosureManager().getClosurePointer(type, callback).address());
    }

    void mount(Path target, String options) throws IOException {
        mount = LowLevelMount.start("sysfs-tree " + target, target, options, ops, OPS_SIZE);
        tree.cache(this);
    }

    boolean awaitInitialized(long timeout, TimeUnit unit) throws InterruptedException {
        return initialized.await(timeout, unit);
    }

    /** Ends the loop and unmounts; the tree no longer invalidates anything. */
    void unmount() {
        tree.cache(KernelCache.NONE);
        LowLevelMount m = mount;
        if (m != null) {
            m.close();
        }
    }

    @Override
    public void entryChanged(SysDir parent, String name) {
        LowLevelMount m = mount;
        if (m != null && (parent.inode() == ROOT_ID || known.containsKey(parent.inode()))) {
            m.invalidateEntry(parent.inode(), name);
        }
    }

    @Override
    public void attributesChanged(KernfsNode node) {
        LowLevelMount m = mount;
        if (m != null && (node.inode() == ROOT_ID || known.containsKey(node.inode()))) {
            m.invalidateInode(node.inode());
        }
    }

    // ---- callbacks ----

    private void lookup(long req, long parent, long cName) {
        answer(req, "lookup", () -> {
            if (!(node(parent) instanceof SysDir dir)) {
                return ENOTDIR;
            }
            KernfsNode node = dir.entry(cString(cName));
            if (node == null) {
                return Errno.ENOENT;
            }
            known.compute(node.inode(), (inode, k) -> new Known(node, parent, k == null ? 1 : k.lookups() + 1));
            long entry = MEMORY.allocateMemory(ENTRY_SIZE, true);
            try {
                MEMORY.putLong(entry, node.inode());
                fill(entry + 16, node);
                MEMORY.putDouble(entry + 16 + STAT_SIZE, CACHE_SECONDS);
                MEMORY.putDouble(entry + 16 + STAT_SIZE + 8, CACHE_SECONDS);
                LowLevelMount.answered();
                LowLevelReplies.entry(req, entry);
            } finally {
                MEMORY.freeMemory(entry);
            }
            return 0;
        });
    }

    private void forget(long req, long inode, long lookups) {
        known.computeIfPresent(inode, (i, k) -> k.lookups() <= lookups ? null : new Known(k.node(), k.parent(), k.lookups() - lookups));
        LowLevelMount.answered();
        LowLevelReplies.none(req);
    }

    private void getattr(long req, long inode, long fi) {
        answer(req, "getattr", () -> replyAttr(req, node(inode)));
    }

    private void setattr(long req, long inode, long stat, int toSet, long fi) {
        answer(req, "setattr", () -> {
            KernfsNode node = node(inode);
            FileStat given = statAt(stat);
            if ((toSet & SET_SIZE) != 0 && node instanceof SysDir) {
                return EISDIR; // kernfs accepts a truncate of a file (O_TRUNC) and keeps no size
            }
            if ((toSet & SET_MODE) != 0) {
                node.permissions(given.st_mode.intValue() & 07777);
            }
            if ((toSet & (SET_UID | SET_GID)) != 0) {
                node.owner((toSet & SET_UID) != 0 ? given.st_uid.longValue() : node.uid(),
                        (toSet & SET_GID) != 0 ? given.st_gid.longValue() : node.gid());
            }
            return replyAttr(req, node);
        });
    }

    private void readlink(long req, long inode) {
        answer(req, "readlink", () -> {
            if (!(node(inode) instanceof Link link)) {
                return Errno.EINVAL;
            }
            byte[] target = link.target();
            long text = MEMORY.allocateMemory(target.length + 1, false);
            try {
                MEMORY.putZeroTerminatedByteArray(text, target, 0, target.length);
                LowLevelMount.answered();
                LowLevelReplies.readlink(req, text);
            } finally {
                MEMORY.freeMemory(text);
            }
            return 0;
        });
    }

    private void open(long req, long inode, long fi) {
        answer(req, "open", () -> {
            KernfsNode node = node(inode);
            if (node instanceof SysDir) {
                return EISDIR;
            }
            if (!(node instanceof Attribute attribute)) {
                return ELOOP;
            }
            int access = MEMORY.getInt(fi + FI_FLAGS) & O_ACCMODE;
            if (access != O_WRONLY && !attribute.readable() || access != O_RDONLY && !attribute.writable()) {
                return Errno.EACCES;
            }
            long handle = handles.incrementAndGet();
            openFiles.put(handle, new OpenAttribute(attribute));
            MEMORY.putLong(fi + FI_FH, handle);
            MEMORY.putInt(fi + FI_BITS, MEMORY.getInt(fi + FI_BITS) | DIRECT_IO);
            LowLevelMount.answered();
            if (LowLevelReplies.open(req, fi) != 0) {
                openFiles.remove(handle); // the caller was interrupted: no release will come
            }
            return 0;
        });
    }

    private void read(long req, long inode, long size, long offset, long fi) {
        answer(req, "read", () -> {
            byte[] text = openFile(fi).textFor(offset);
            int length = offset >= text.length ? 0 : (int) Math.min(size, text.length - offset);
            replyBytes(req, text, (int) Math.min(offset, text.length), length);
            return 0;
        });
    }

    private void write(long req, long inode, long buf, long size, long offset, long fi) {
        answer(req, "write", () -> {
            OpenAttribute file = openFile(fi);
            if (size > Attribute.PAGE_SIZE) {
                return E2BIG;
            }
            if (size > 0) {
                byte[] text = new byte[(int) size];
                MEMORY.getByteArray(buf, text, 0, text.length);
                file.store(text);
            }
            LowLevelMount.answered();
            LowLevelReplies.write(req, size);
            return 0;
        });
    }

    private void release(long req, long inode, long fi) {
        openFiles.remove(MEMORY.getLong(fi + FI_FH));
        reply(req, 0);
    }

    /**
     * Lists ".", "..", then the entries in name order; {@code offset} counts entries already
     * listed. The records are struct fuse_dirent (linux/fuse.h), written here: libfuse's
     * fuse_add_direntry through jnr-ffi received its sixth argument (the offset) garbled.
     */
    private void readdir(long req, long inode, long size, long offset, long fi) {
        answer(req, "readdir", () -> {
            if (!(node(inode) instanceof SysDir dir)) {
                return ENOTDIR;
            }
            List<Map.Entry<String, KernfsNode>> entries = new ArrayList<>();
            entries.add(Map.entry(".", dir));
            Known self = known.get(inode);
            Known parent = self == null ? null : known.get(self.parent());
            entries.add(Map.entry("..", parent == null ? root : parent.node()));
            dir.entries().forEach(entries::add);
            ByteBuffer records = ByteBuffer.allocate((int) Math.min(size, 1 << 20)).order(ByteOrder.nativeOrder());
            for (int i = (int) Math.min(offset, entries.size()); i < entries.size(); i++) {
                KernfsNode node = entries.get(i).getValue();
                byte[] name = entries.get(i).getKey().getBytes(StandardCharsets.UTF_8);
                int length = (DIRENT_NAME + name.length + 7) & ~7;
                if (length > records.remaining()) {
                    break;
                }
                int at = records.position();
                records.putLong(node.inode()).putLong(i + 1).putInt(name.length).putInt(node.fileType() >> 12).put(name);
                records.position(at + length);
            }
            replyBytes(req, records.array(), 0, records.position());
            return 0;
        });
    }

    // ---- helpers ----

    /** A body of a callback that has replied (returns 0) or returns the errno to reply. */
    @FunctionalInterface
    private interface Call {
        int run() throws Errno;
    }

    /** Runs a callback so that it replies once: its own reply, its errno, or EIO on an exception. */
    private static void answer(long req, String operation, Call call) {
        int errno;
        try {
            errno = call.run();
        } catch (Errno e) {
            errno = e.code();
        } catch (RuntimeException | Error e) {
            if (!Fatal.check(e, "sysfs " + operation)) { // an Error stops the daemon whole
                LOG.log(Level.ERROR, operation + " failed", e);
            }
            errno = Errno.EIO;
        }
        if (errno != 0) {
            reply(req, errno);
        }
    }

    private static void reply(long req, int errno) {
        LowLevelMount.answered();
        LowLevelReplies.error(req, errno);
    }

    private int replyAttr(long req, KernfsNode node) {
        long stat = MEMORY.allocateMemory(STAT_SIZE, true);
        try {
            fill(stat, node);
            LowLevelMount.answered();
            LowLevelReplies.attributes(req, stat, CACHE_SECONDS);
        } finally {
            MEMORY.freeMemory(stat);
        }
        return 0;
    }

    private static void replyBytes(long req, byte[] bytes, int from, int length) {
        long buf = MEMORY.allocateMemory(Math.max(length, 1), false);
        try {
            MEMORY.putByteArray(buf, bytes, from, length);
            LowLevelMount.answered();
            LowLevelReplies.buffer(req, buf, length);
        } finally {
            MEMORY.freeMemory(buf);
        }
    }

    /** The node of a kernel node id: the root, or one the kernel looked up. */
    private KernfsNode node(long inode) throws Errno {
        if (inode == ROOT_ID) {
            return root;
        }
        Known k = known.get(inode);
        if (k == null) {
            throw Errno.of(Errno.ENOENT);
        }
        return k.node();
    }

    private OpenAttribute openFile(long fi) throws Errno {
        OpenAttribute file = openFiles.get(MEMORY.getLong(fi + FI_FH));
        if (file == null) {
            throw Errno.of(Errno.EBADF);
        }
        return file;
    }

    private static FileStat statAt(long address) {
        FileStat stat = new FileStat(RUNTIME);
        stat.useMemory(Pointer.wrap(RUNTIME, address));
        return stat;
    }

    private static void fill(long address, KernfsNode node) {
        FileStat stat = statAt(address);
        stat.st_ino.set(node.inode());
        stat.st_mode.set(node.fileType() | node.permissions());
        stat.st_nlink.set(node.linkCount());
        stat.st_uid.set(node.uid());
        stat.st_gid.set(node.gid());
        stat.st_size.set(node.size());
        stat.st_blksize.set(Attribute.PAGE_SIZE);
        stat.st_blocks.set(0);
        long seconds = node.createdEpochSecond();
        stat.st_atim.tv_sec.set(seconds);
        stat.st_mtim.tv_sec.set(seconds);
        stat.st_ctim.tv_sec.set(seconds);
    }

    private static String cString(long address) {
        return new String(MEMORY.getZeroTerminatedByteArray(address), StandardCharsets.UTF_8);
    }
}
