package io.ibemu.sysfs;

import io.ibemu.devfs.Errno;
import io.ibemu.devfs.Fatal;
import io.ibemu.devfs.fuse.OpenFlags;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import jnr.ffi.Pointer;
import jnr.ffi.types.dev_t;
import jnr.ffi.types.gid_t;
import jnr.ffi.types.mode_t;
import jnr.ffi.types.off_t;
import jnr.ffi.types.size_t;
import jnr.ffi.types.uid_t;
import ru.serce.jnrfuse.ErrorCodes;
import ru.serce.jnrfuse.FuseFillDir;
import ru.serce.jnrfuse.FuseStubFS;
import ru.serce.jnrfuse.struct.FileStat;
import ru.serce.jnrfuse.struct.FuseFileInfo;
import ru.serce.jnrfuse.struct.Timespec;

/**
 * The FUSE side of a {@link SysfsTree}: path lookups walk the tree's maps, attribute files are
 * served with direct I/O, and every callback answers with an errno, never an exception.
 */
final class TreeFileSystem extends FuseStubFS {

    private static final System.Logger LOG = System.getLogger(TreeFileSystem.class.getName());
    private static final int O_ACCMODE = 3;
    private static final int O_RDONLY = 0;
    private static final int O_WRONLY = 1;

    private final SysDir root;
    private final Map<Long, OpenAttribute> openFiles = new ConcurrentHashMap<>();
    private final AtomicLong handles = new AtomicLong();
    private final CountDownLatch initialized = new CountDownLatch(1);

    TreeFileSystem(SysDir root) {
        this.root = root;
    }

    /** A body of a callback: returns its result or throws the errno to answer. */
    @FunctionalInterface
    private interface Call {
        int run() throws Errno;
    }

    boolean awaitInitialized(long timeout, TimeUnit unit) throws InterruptedException {
        return initialized.await(timeout, unit);
    }

    /** The kernel's FUSE_INIT arrived: the file system is mounted. */
    boolean initialized() {
        return initialized.getCount() == 0;
    }

    /** Keeps jnr-fuse's shutdown hook from unmounting a path that may no longer be ours. */
    void markUnmounted() {
        mounted.set(false);
    }

    @Override
    public Pointer init(Pointer conn) {
        initialized.countDown();
        return null;
    }

    @Override
    public int getattr(String path, FileStat stat) {
        return answer("getattr", path, () -> {
            fill(stat, find(path));
            return 0;
        });
    }

    @Override
    public int readlink(String path, Pointer buf, @size_t long size) {
        return answer("readlink", path, () -> {
            if (!(find(path) instanceof Link link)) {
                return -ErrorCodes.EINVAL();
            }
            byte[] target = link.target();
            int length = (int) Math.min(target.length, size - 1);
            buf.put(0, target, 0, length);
            buf.putByte(length, (byte) 0);
            return 0;
        });
    }

    @Override
    public int readdir(String path, Pointer buf, FuseFillDir filler, @off_t long offset, FuseFileInfo fi) {
        return answer("readdir", path, () -> {
            Node node = find(path);
            if (!(node instanceof SysDir dir)) {
                return -ErrorCodes.ENOTDIR();
            }
            FileStat stat = new FileStat(jnr.ffi.Runtime.getSystemRuntime());
            addEntry(filler, buf, ".", dir, stat);
            addEntry(filler, buf, "..", parentOf(path), stat);
            for (Map.Entry<String, Node> entry : dir.entries()) {
                if (addEntry(filler, buf, entry.getKey(), entry.getValue(), stat) != 0) {
                    break;
                }
            }
            return 0;
        });
    }

    @Override
    public int open(String path, FuseFileInfo fi) {
        return answer("open", path, () -> {
            Node node = find(path);
            if (node instanceof SysDir) {
                return -ErrorCodes.EISDIR();
            }
            if (!(node instanceof Attribute attribute)) {
                return -ErrorCodes.ELOOP();
            }
            int access = fi.flags.get() & O_ACCMODE;
            if (access != O_WRONLY && !attribute.readable() || access != O_RDONLY && !attribute.writable()) {
                return -ErrorCodes.EACCES();
            }
            long handle = handles.incrementAndGet();
            openFiles.put(handle, new OpenAttribute(attribute));
            fi.fh.set(handle);
            OpenFlags.directIo(fi);
            return 0;
        });
    }

    @Override
    public int read(String path, Pointer buf, @size_t long size, @off_t long offset, FuseFileInfo fi) {
        return answer("read", path, () -> {
            byte[] text = openFile(fi).textFor(offset);
            if (offset >= text.length) {
                return 0;
            }
            int length = (int) Math.min(size, text.length - offset);
            buf.put(0, text, (int) offset, length);
            return length;
        });
    }

    @Override
    public int write(String path, Pointer buf, @size_t long size, @off_t long offset, FuseFileInfo fi) {
        return answer("write", path, () -> {
            OpenAttribute file = openFile(fi);
            if (size == 0) {
                return 0;
            }
            if (size > Attribute.PAGE_SIZE) {
                return -ErrorCodes.E2BIG();
            }
            byte[] text = new byte[(int) size];
            buf.get(0, text, 0, text.length);
            file.store(text);
            return text.length;
        });
    }

    @Override
    public int release(String path, FuseFileInfo fi) {
        return answer("release", path, () -> {
            openFiles.remove(fi.fh.get());
            return 0;
        });
    }

    /** The kernel's truncate for O_TRUNC: kernfs accepts it and keeps no size. */
    @Override
    public int truncate(String path, @off_t long size) {
        return answer("truncate", path, () -> find(path) instanceof SysDir ? -ErrorCodes.EISDIR() : 0);
    }

    @Override
    public int chmod(String path, @mode_t long mode) {
        return answer("chmod", path, () -> {
            find(path).permissions((int) mode);
            return 0;
        });
    }

    @Override
    public int chown(String path, @uid_t long uid, @gid_t long gid) {
        return answer("chown", path, () -> {
            Node node = find(path);
            node.owner(unchanged(uid) ? node.uid() : uid, unchanged(gid) ? node.gid() : gid);
            return 0;
        });
    }

    @Override
    public int utimens(String path, Timespec[] timespec) {
        return answer("utimens", path, () -> {
            find(path);
            return 0;
        });
    }

    // sysfs has no create, mkdir, mknod, link, symlink, unlink, rmdir or rename: the VFS refuses
    // O_CREAT with EACCES and the others with EPERM.

    @Override
    public int create(String path, @mode_t long mode, FuseFileInfo fi) {
        return -ErrorCodes.EACCES();
    }

    @Override
    public int mknod(String path, @mode_t long mode, @dev_t long rdev) {
        return -ErrorCodes.EPERM();
    }

    @Override
    public int mkdir(String path, @mode_t long mode) {
        return -ErrorCodes.EPERM();
    }

    @Override
    public int unlink(String path) {
        return -ErrorCodes.EPERM();
    }

    @Override
    public int rmdir(String path) {
        return -ErrorCodes.EPERM();
    }

    @Override
    public int symlink(String oldpath, String newpath) {
        return -ErrorCodes.EPERM();
    }

    @Override
    public int link(String oldpath, String newpath) {
        return -ErrorCodes.EPERM();
    }

    @Override
    public int rename(String oldpath, String newpath) {
        return -ErrorCodes.EPERM();
    }

    /** The node at an absolute FUSE path, walking the maps from the root. */
    private Node find(String path) throws Errno {
        Node node = root;
        int start = 1;
        while (start < path.length()) {
            int end = path.indexOf('/', start);
            if (end < 0) {
                end = path.length();
            }
            if (!(node instanceof SysDir dir)) {
                throw Errno.of(ErrorCodes.ENOTDIR());
            }
            node = dir.entry(path.substring(start, end));
            if (node == null) {
                throw Errno.of(Errno.ENOENT);
            }
            start = end + 1;
        }
        return node;
    }

    /** chown(2)'s (uid_t) -1, "leave as is", however jnr maps the unsigned value. */
    private static boolean unchanged(long id) {
        return id == -1 || id == 0xffffffffL;
    }

    private Node parentOf(String path) throws Errno {
        int slash = path.lastIndexOf('/');
        return slash <= 0 ? root : find(path.substring(0, slash));
    }

    private OpenAttribute openFile(FuseFileInfo fi) throws Errno {
        OpenAttribute file = openFiles.get(fi.fh.get());
        if (file == null) {
            throw Errno.of(Errno.EBADF);
        }
        return file;
    }

    private static int addEntry(FuseFillDir filler, Pointer buf, String name, Node node, FileStat stat) {
        stat.st_ino.set(node.inode());
        stat.st_mode.set(node.fileType() | node.permissions());
        // the name must reach C NUL-terminated; jnr-fuse's String overload does not add the NUL
        ByteBuffer cName = ByteBuffer.wrap((name + '\0').getBytes(StandardCharsets.UTF_8));
        return filler.apply(buf, cName, jnr.ffi.Struct.getMemory(stat), 0);
    }

    private static void fill(FileStat stat, Node node) {
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

    /** Runs a callback so that no exception reaches jnr-fuse: Errno answers as -errno, others as EIO. */
    private static int answer(String operation, String path, Call call) {
        try {
            return call.run();
        } catch (Errno e) {
            return -e.code();
        } catch (RuntimeException | Error e) {
            if (!Fatal.check(e, "sysfs " + operation)) { // an Error stops the daemon whole
                LOG.log(Level.ERROR, operation + " " + path + " failed", e);
            }
            return -ErrorCodes.EIO();
        }
    }
}
