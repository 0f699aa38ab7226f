package io.ibemu.devfs;

import io.ibemu.devfs.fuse.Channel;
import io.ibemu.devfs.fuse.FuseIn;
import io.ibemu.devfs.fuse.FuseOut;
import io.ibemu.devfs.fuse.Opcode;
import io.ibemu.devfs.fuse.Request;
import io.ibemu.devfs.fuse.Session;
import io.ibemu.kernel.Errno;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link DeviceDirectory} served on /dev/fuse directly (no libfuse): mounted with mount(2),
 * its directory requests (INIT, LOOKUP, FORGET, GETATTR, SETATTR, OPENDIR, READDIR, STATFS...)
 * answered here as libfuse 2.9's high-level API answered them before this replaced it, its file
 * requests by {@link DeviceRequests}.
 */
final class DirectFileSystem {

    private static final System.Logger LOG = System.getLogger(DirectFileSystem.class.getName());
    /** The protocol minor this code is written against (linux/fuse.h 7.38); the kernel's if older. */
    static final int MINOR = 38;
    private static final int MAJOR = 7;
    /** FUSE_ASYNC_READ | FUSE_BIG_WRITES: what libfuse 2.9 asked for with big_writes. */
    private static final int INIT_FLAGS = 1 | (1 << 5);
    private static final int MAX_PAGES = 32;
    /** max_write and max_read: 32 pages, as the libfuse mount had. */
    static final int MAX_WRITE = DeviceRequests.MAX_REQUEST;
    /** libfuse's default entry_timeout; attributes are never cached (attr_timeout=0), as before. */
    private static final long ENTRY_VALID_NANOS = 1_000_000_000L;
    private static final long MS_NOSUID = 2;
    private static final long MS_NODEV = 4;
    private static final int MNT_DETACH = 2;
    private static final int S_IFDIR = 0040000;
    private static final int S_IFREG = 0100000;
    private static final int DT_DIR = 4;
    private static final int DT_REG = 8;

    private final String fsName;
    private final Map<String, DeviceDirectory.Entry> entries;
    private final Map<String, DeviceDirectory.Entry> hidden;
    /** One-shot entries gone from {@code hidden} but still open: fstat of their descriptors asks for them by name. */
    private final Map<String, DeviceDirectory.Entry> openedHidden = new ConcurrentHashMap<>();
    private final NodeTable nodes = new NodeTable();
    /** OPENDIR's snapshot of the names, by directory handle. */
    private final Map<Long, List<String>> listings = new ConcurrentHashMap<>();
    private final AtomicLong listingHandles = new AtomicLong();
    private final long created = System.currentTimeMillis() / 1000;
    final CountDownLatch initialized = new CountDownLatch(1);
    private Channel channel;
    private DeviceRequests files;
    private Session session;

    DirectFileSystem(String fsName, Map<String, DeviceDirectory.Entry> entries,
                     Map<String, DeviceDirectory.Entry> hidden) {
        this.fsName = fsName;
        this.entries = entries;
        this.hidden = hidden;
    }

    /** Opens /dev/fuse and mounts it at {@code target}; {@link #serve} then answers, INIT first. */
    void mount(Path target) throws IOException {
        channel = Channel.open("/dev/fuse");
        files = new DeviceRequests(channel);
        files.onRelease(openedHidden::remove);
        Map<Integer, Session.Handler> handlers = new HashMap<>(files.handlers());
        handlers.put(Opcode.INIT, this::init);
        handlers.put(Opcode.DESTROY, r -> r.reply(0));
        handlers.put(Opcode.LOOKUP, this::lookup);
        handlers.put(Opcode.FORGET, this::forget);
        handlers.put(Opcode.BATCH_FORGET, this::batchForget);
        handlers.put(Opcode.GETATTR, this::getattr);
        handlers.put(Opcode.SETATTR, this::setattr);
        handlers.put(Opcode.STATFS, r -> r.reply(FuseOut.statfs(r.out(), Request.REPLY, 512, 255)));
        handlers.put(Opcode.OPEN, this::open);
        handlers.put(Opcode.OPENDIR, this::opendir);
        handlers.put(Opcode.READDIR, this::readdir);
        handlers.put(Opcode.RELEASEDIR, this::releasedir);
        session = new Session("devfs-" + fsName, channel, handlers, MAX_WRITE);
        // the options libfuse 2.9 gave the kernel for allow_other,default_permissions,max_read=131072
        String options = "fd=" + channel.fd() + ",rootmode=40000,user_id=" + Libc.CALLS.getuid() + ",group_id="
                + Libc.CALLS.getgid() + ",allow_other,default_permissions,max_read=" + MAX_WRITE;
        if (Libc.CALLS.mount(fsName, target.toString(), "fuse", MS_NOSUID | MS_NODEV, options) != 0) {
            int errno = Libc.errno();
            channel.close();
            throw new IOException("mount " + fsName + " on " + target + ": errno " + errno);
        }
    }

    HandleTable handles() {
        return files.handles;
    }

    /** Serves on the calling thread until no worker is left; then nothing writes to the channel again. */
    int serve() {
        try {
            return session.serve();
        } finally {
            files.startClosing();
            channel.close(); // the last descriptor: the kernel aborts the connection and fails what is queued
        }
    }

    void startClosing() {
        files.startClosing();
    }

    /** Node ids the table holds (the root apart). */
    int nodeCount() {
        return nodes.size();
    }

    /** {@code name} has left the directory: the kernel drops its dentry, and the node is forgotten at its last close. */
    void removed(String name) {
        channel.notifyInvalEntry(NodeTable.ROOT, name);
    }

    /** Ends the workers (each after one more request: statfs of {@code target}); false if some would not end. */
    boolean stop(Thread loop, Path target, long timeoutMs) {
        session.stop();
        return session.endWorkers(() -> Libc.statfs(target), loop, timeoutMs);
    }

    // ---- INIT ----

    private void init(Request request) {
        FuseIn.Init in = FuseIn.Init.decode(request.in(), Request.BODY, request.bodyLength());
        if (in.major() > MAJOR) { // the kernel then sends INIT again with ours (fuse_process_init_reply)
            request.reply(FuseOut.init(request.out(), Request.REPLY, MAJOR, MINOR, 0, 0, 0, 0));
            return;
        }
        if (in.major() < MAJOR) {
            LOG.log(System.Logger.Level.ERROR, "{0}: the kernel speaks FUSE {1}.{2}", fsName, in.major(), in.minor());
            request.replyError(71); // EPROTO
            return;
        }
        int minor = Math.min(in.minor(), MINOR);
        request.reply(FuseOut.init(request.out(), Request.REPLY, MAJOR, minor, in.maxReadahead(),
                in.flags() & INIT_FLAGS, MAX_WRITE, MAX_PAGES));
        initialized.countDown();
    }

    // ---- nodes ----

    private DeviceDirectory.Entry entry(String name) {
        if (name == null) {
            return null;
        }
        DeviceDirectory.Entry entry = entries.get(name);
        if (entry == null) {
            entry = hidden.get(name);
        }
        return entry != null ? entry : openedHidden.get(name);
    }

    private FuseOut.Attr attr(long node, DeviceDirectory.Entry entry) {
        if (entry == null) {
            return new FuseOut.Attr(NodeTable.ROOT, 0, created, S_IFDIR | 0755, 2, 0, 0);
        }
        return new FuseOut.Attr(node, 0, created, S_IFREG | entry.mode(), 1, entry.uid(), entry.gid());
    }

    private void lookup(Request request) throws Errno {
        if (request.nodeid() != NodeTable.ROOT) {
            throw Errno.of(Errno.ENOENT);
        }
        String name = FuseIn.name(request.in(), Request.BODY, request.header().length());
        DeviceDirectory.Entry entry = entry(name);
        if (entry == null) {
            throw Errno.of(Errno.ENOENT);
        }
        long node = nodes.lookup(name);
        request.reply(FuseOut.entry(request.out(), Request.REPLY, node, ENTRY_VALID_NANOS, 0, attr(node, entry)));
    }

    private void forget(Request request) {
        nodes.forget(request.nodeid(), FuseIn.Forget.decode(request.in(), Request.BODY).nlookup());
        request.replyNone();
    }

    private void batchForget(Request request) {
        ByteBuffer in = request.in();
        int count = FuseIn.BatchForget.decode(in, Request.BODY).count();
        int fits = (request.bodyLength() - FuseIn.BatchForget.LAYOUT.size()) / FuseIn.BatchForget.ONE.size();
        for (int i = 0; i < Math.min(count, fits); i++) {
            nodes.forget(FuseIn.BatchForget.nodeid(in, Request.BODY, i), FuseIn.BatchForget.nlookup(in, Request.BODY, i));
        }
        request.replyNone();
    }

    /** The entry of a node other than the root, or ENOENT. */
    private DeviceDirectory.Entry fileEntry(long node) throws Errno {
        DeviceDirectory.Entry entry = entry(nodes.name(node));
        if (entry == null) {
            throw Errno.of(Errno.ENOENT);
        }
        return entry;
    }

    private void getattr(Request request) throws Errno {
        long node = request.nodeid();
        DeviceDirectory.Entry entry = node == NodeTable.ROOT ? null : fileEntry(node);
        request.reply(FuseOut.attrOut(request.out(), Request.REPLY, 0, attr(node, entry)));
    }

    /**
     * Only a truncation (an O_TRUNC open: shell redirection), which a character device ignores;
     * chmod, chown and setting both times were ENOSYS over libfuse (no such callbacks) and stay so.
     */
    private void setattr(Request request) throws Errno {
        FuseIn.Setattr in = FuseIn.Setattr.decode(request.in(), Request.BODY);
        int unsupported = FuseIn.Setattr.MODE | FuseIn.Setattr.UID | FuseIn.Setattr.GID;
        int bothTimes = FuseIn.Setattr.ATIME | FuseIn.Setattr.MTIME;
        if ((in.valid() & unsupported) != 0 || (in.valid() & bothTimes) == bothTimes) {
            throw Errno.of(Errno.ENOSYS);
        }
        long node = request.nodeid();
        DeviceDirectory.Entry entry = node == NodeTable.ROOT ? null : fileEntry(node);
        request.reply(FuseOut.attrOut(request.out(), Request.REPLY, 0, attr(node, entry)));
    }

    // ---- files ----

    private void open(Request request) throws Errno {
        String name = nodes.name(request.nodeid());
        DeviceDirectory.Entry entry = fileEntry(request.nodeid());
        long fh = files.open(request, entry.device(), name);
        if (hidden.containsKey(name)) {
            openedHidden.put(name, entry);
        }
        DeviceRequests.replyOpen(request, fh);
    }

    // ---- the directory ----

    private void opendir(Request request) throws Errno {
        if (request.nodeid() != NodeTable.ROOT) {
            throw Errno.of(Errno.ENOTDIR);
        }
        List<String> names = new ArrayList<>(List.of(".", ".."));
        names.addAll(entries.keySet());
        long fh = listingHandles.incrementAndGet();
        listings.put(fh, names);
        request.reply(FuseOut.open(request.out(), Request.REPLY, fh, 0));
    }

    /** Entries from the offset on (an entry's offset is its index + 1), as many as fit in the size asked. */
    private void readdir(Request request) throws Errno {
        FuseIn.Read in = FuseIn.Read.decode(request.in(), Request.BODY);
        List<String> names = listings.get(in.fh());
        if (names == null) {
            throw Errno.of(Errno.EBADF);
        }
        ByteBuffer out = request.out();
        int limit = Math.min(in.size(), request.replyCapacity());
        int length = 0;
        for (int i = (int) Math.max(0, in.offset()); i < names.size(); i++) {
            String name = names.get(i);
            byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
            if (length + FuseOut.direntSize(bytes) > limit) {
                break;
            }
            boolean dot = i < 2;
            long ino = dot ? NodeTable.ROOT : nodes.inode(name);
            length += FuseOut.dirent(out, Request.REPLY + length, ino, i + 1, dot ? DT_DIR : DT_REG, bytes);
        }
        request.reply(length);
    }

    private void releasedir(Request request) {
        listings.remove(FuseIn.Release.decode(request.in(), Request.BODY).fh());
        request.reply(0);
    }

    /** Detaches the mount point (the connection is gone or going). */
    static void detach(Path target) {
        Libc.CALLS.umount2(target.toString(), MNT_DETACH);
    }
}
