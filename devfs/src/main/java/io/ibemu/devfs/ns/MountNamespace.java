package io.ibemu.devfs.ns;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * Builds a private view of the file system inside the process's own mount namespace: entries
 * grafted into {@code /dev}, {@code /sys/class}, {@code /sys/devices/...} or {@code /run} that
 * only this namespace sees, with every original entry still in place.
 *
 * <p>Nothing is ever created on a host file system: {@code /sys} refuses new entries and
 * {@code /dev} is one devtmpfs shared with the host. Before the first new entry in such a
 * directory, the directory is <em>layered</em>: a tmpfs is mounted over it and every original
 * entry is put back on it (sub-directories and files bind-mounted, recursively for directories
 * so submounts such as /dev/pts survive; symlinks recreated). The originals are reached through
 * an {@code O_PATH} descriptor opened before the tmpfs hides them, so no staging directory is
 * needed. Entries the host adds to a layered directory afterwards stay invisible here.
 *
 * <p>Every method refuses to act unless {@link #requirePrivate()} confirms the namespace is not
 * the parent process's.
 */
public final class MountNamespace {

    private static final System.Logger LOG = System.getLogger(MountNamespace.class.getName());

    private static boolean verified; // guarded by the class
    /** Directories on a tmpfs this class mounted, where entries may be created freely. */
    private static final Set<Path> ours = new HashSet<>(); // guarded by the class
    private static final Set<Path> layered = new LinkedHashSet<>(); // guarded by the class

    private MountNamespace() {
    }

    /**
     * Fails unless this process runs in a mount namespace other than its parent's (or, under
     * {@code unshare --fork}, another ancestor's), then makes every mount in it private so that
     * nothing done here propagates back to the host.
     */
    public static synchronized void requirePrivate() throws IOException {
        String own = namespace(ProcessHandle.current().pid());
        Optional<ProcessHandle> ancestor = ProcessHandle.current().parent();
        long parent = ancestor.map(ProcessHandle::pid).orElse(1L);
        boolean separate = false;
        while (ancestor.isPresent() && !separate) {
            String theirs = namespaceOrNull(ancestor.get().pid());
            separate = theirs != null && !theirs.equals(own);
            ancestor = ancestor.get().pid() == 1 ? Optional.empty() : ancestor.get().parent();
        }
        // In a user namespace of its own (unshare -Urm, an unprivileged start) the ancestors' links
        // cannot be read (EACCES), and no mount can succeed in a namespace it does not own anyway.
        if (!separate && !inInitialUserNamespace()) {
            separate = true;
        }
        if (!separate) {
            throw new IOException("this process shares its mount namespace " + own + " with its parent (pid "
                    + parent + "); start it with `unshare -m --propagation private` so that its mounts stay "
                    + "private instead of changing the host's /dev, /sys and /run");
        }
        MountCalls.mount(null, Path.of("/"), null, MountCalls.MS_REC | MountCalls.MS_PRIVATE, null);
        verified = true;
    }

    /** The initial user namespace maps every uid to itself (user_namespaces(7), uid_map). */
    private static boolean inInitialUserNamespace() throws IOException {
        return Files.readString(Path.of("/proc/self/uid_map")).trim().matches("0\\s+0\\s+4294967295");
    }

    private static String namespace(long pid) throws IOException {
        return Files.readSymbolicLink(Path.of("/proc", Long.toString(pid), "ns", "mnt")).toString();
    }

    private static String namespaceOrNull(long pid) {
        try {
            return namespace(pid);
        } catch (IOException e) {
            return null;
        }
    }

    /** Mounts a private tmpfs at {@code dir} (created privately if missing), for mountpoints and scratch. */
    public static synchronized void workDirectory(Path dir) throws IOException {
        privateTmpfs(dir, MountCalls.MS_NOSUID);
    }

    /**
     * Mounts a private tmpfs at {@code dir} (created privately if missing) with nodev: device
     * nodes made there by {@link #charNode} show the right type and numbers to stat, but opening
     * one never reaches a kernel driver (EACCES).
     */
    public static synchronized void nodeDirectory(Path dir) throws IOException {
        privateTmpfs(dir, MountCalls.MS_NOSUID | MountCalls.MS_NODEV);
    }

    /** A private tmpfs (0755, root's) at {@code dir}, made privately if missing, with {@code flags}. */
    private static void privateTmpfs(Path dir, long flags) throws IOException {
        checkPrivate();
        Path target = canonical(dir);
        if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
            requireDirectory(target);
        } else {
            makeDirectory(target);
        }
        MountCalls.tmpfs(target, 0755, 0, 0, flags);
        forgetBelow(target);
        ours.add(target);
    }

    /** Makes a character device node {@code major:minor}, mode {@code mode}, in a directory of ours. */
    public static synchronized void charNode(Path path, int major, int minor, int mode) throws IOException {
        checkPrivate();
        Path where = canonical(path);
        if (!ours.contains(where.getParent())) {
            throw new IOException("refusing to make a device node outside a private directory: " + where);
        }
        long dev = ((major & 0xfffL) << 8) | ((major & ~0xfffL) << 32) | (minor & 0xffL) | ((minor & ~0xffL) << 12);
        if (!MountCalls.mknodIfPermitted(where, mode, dev)) {
            // no device node here: a user namespace (mknod needs CAP_MKNOD in the initial one) or a
            // container's device cgroup. An empty file of the node's mode stands at its path; the
            // supervisor opens it by path and answers fstat of what it installs as the node's,
            // only stat by path differs
            Files.createFile(where);
        }
        Files.setPosixFilePermissions(where, java.nio.file.attribute.PosixFilePermissions.fromString(permissions(mode)));
    }

    private static String permissions(int mode) {
        String letters = "rwxrwxrwx";
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 9; i++) {
            b.append((mode & (0400 >> i)) != 0 ? letters.charAt(i) : '-');
        }
        return b.toString();
    }

    /**
     * Makes {@code target} show {@code source} (a directory or a file) with a recursive bind
     * mount, creating {@code target} and its missing ancestors privately.
     */
    public static synchronized void graft(Path source, Path target) throws IOException {
        checkPrivate();
        if (!Files.exists(source)) {
            throw new IOException("graft source does not exist: " + source);
        }
        boolean directory = Files.isDirectory(source);
        Path where = canonical(target);
        if (Files.exists(where, LinkOption.NOFOLLOW_LINKS)) {
            if (Files.isDirectory(where, LinkOption.NOFOLLOW_LINKS) != directory) {
                throw new IOException("cannot graft " + source + " on " + where + ": one is a directory, the other not");
            }
        } else {
            Path parent = where.getParent();
            makeDirectory(parent);
            layerIfNeeded(parent);
            if (directory) {
                Files.createDirectory(where);
            } else {
                Files.createFile(where);
            }
        }
        MountCalls.bind(source.toAbsolutePath(), where, true);
        forgetBelow(where);
    }

    /**
     * Undoes {@link #graft}: detaches what is mounted at {@code target} (files open below it stay
     * open) and removes the entry, which graft made in a private directory.
     */
    public static synchronized void ungraft(Path target) throws IOException {
        checkPrivate();
        Path where = canonical(target);
        if (!ours.contains(where.getParent())) {
            throw new IOException("refusing to remove " + where + ": not in a private directory");
        }
        MountCalls.detach(where);
        Files.delete(where);
    }

    /**
     * Detaches what {@link #graft} mounted over an entry that is not ours to remove (a directory
     * of a real sysfs, say), leaving the entry itself as it was underneath.
     */
    public static synchronized void uncover(Path target) throws IOException {
        checkPrivate();
        MountCalls.detach(canonical(target)); // where graft mounted it
    }

    /** Removes a symlink or device node made in one of our private directories ({@link #symlink}, {@link #charNode}). */
    public static synchronized void unlink(Path path) throws IOException {
        checkPrivate();
        Path absolute = path.toAbsolutePath().normalize();
        Path where = canonical(absolute.getParent()).resolve(absolute.getFileName().toString());
        if (!ours.contains(where.getParent())) {
            throw new IOException("refusing to remove " + where + ": not in a private directory");
        }
        Files.deleteIfExists(where);
    }

    /**
     * Makes {@code link} a symlink to {@code target} (as given, e.g. "../../devices/..."), layering
     * its directory first; an entry of that name there is replaced, in this namespace only.
     */
    public static synchronized void symlink(Path link, String target) throws IOException {
        checkPrivate();
        Path absolute = link.toAbsolutePath().normalize();
        Path parent = canonical(absolute.getParent());
        Path where = parent.resolve(absolute.getFileName().toString());
        makeDirectory(parent);
        layerIfNeeded(parent);
        if (Files.isSymbolicLink(where)) {
            Files.delete(where);
        } else if (Files.exists(where, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException("cannot make a symlink at " + where + ": something else is there");
        }
        Files.createSymbolicLink(where, Path.of(target));
    }

    /**
     * Mounts a new sysfs instance on the empty directory {@code dir}: its net-namespace-tagged
     * directories (class/net, devices/virtual/net) show the network namespace of this process,
     * where the sysfs the namespace inherited shows the host's (sysfs_get_tree takes the
     * mounter's namespace).
     */
    public static synchronized void sysfs(Path dir) throws IOException {
        checkPrivate();
        Path target = canonical(dir);
        requireDirectory(target);
        MountCalls.mount("sysfs", target, "sysfs", MountCalls.MS_NOSUID | MountCalls.MS_NODEV | MountCalls.MS_NOEXEC,
                null);
    }

    /**
     * Replaces {@code dir} by a private tmpfs holding a copy of its contents (for state such as
     * /run/udev that tools write); creates it privately, empty, when it does not exist.
     * Sockets, fifos and device nodes are not copied.
     */
    public static synchronized void privateCopy(Path dir) throws IOException {
        checkPrivate();
        Path target = canonical(dir);
        if (!Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
            makeDirectory(target);
            MountCalls.tmpfs(target, 0755, 0, 0);
        } else {
            requireDirectory(target);
            Owner owner = Owner.of(target);
            int fd = MountCalls.openPath(target);
            try {
                MountCalls.tmpfs(target, owner.mode, owner.uid, owner.gid);
                copyTree(original(fd).resolve("."), target);
            } finally {
                MountCalls.close(fd);
            }
        }
        forgetBelow(target);
        ours.add(target);
    }

    /**
     * Replaces {@code dir} by a private, empty tmpfs with the directory's owner and mode (a
     * tool's cache that must start empty and never reach the host); creates it privately when
     * it does not exist.
     */
    public static synchronized void privateEmpty(Path dir) throws IOException {
        checkPrivate();
        Path target = canonical(dir);
        if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
            requireDirectory(target);
            Owner owner = Owner.of(target);
            MountCalls.tmpfs(target, owner.mode, owner.uid, owner.gid);
        } else {
            makeDirectory(target);
            MountCalls.tmpfs(target, 0755, 0, 0);
        }
        forgetBelow(target);
        ours.add(target);
    }

    /**
     * Makes {@code dir} private: what is created in it from now on stays in this namespace, the
     * host's entries stay in view (layered), except those {@code leftOut} names, which are not
     * there at all (a tool's log or dump files, to start from none).
     */
    public static synchronized void privateEntries(Path dir, Predicate<String> leftOut) throws IOException {
        checkPrivate();
        Path target = canonical(dir);
        requireDirectory(target);
        layerIfNeeded(target);
        List<Path> gone;
        try (Stream<Path> entries = Files.list(target)) {
            gone = entries.filter(e -> leftOut.test(e.getFileName().toString())).toList();
        }
        for (Path entry : gone) {
            if (!Files.isSymbolicLink(entry)) {
                MountCalls.detach(entry); // a bound original (restore); a symlink is a copy
            }
            if (Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) {
                try (Stream<Path> below = Files.list(entry)) {
                    if (below.findAny().isPresent()) {
                        throw new IOException("cannot leave out " + entry + ": it is not empty once detached");
                    }
                }
            }
            Files.delete(entry);
        }
    }

    /** The directories layered so far, in order. */
    public static synchronized List<Path> layeredDirectories() {
        return Collections.unmodifiableList(new ArrayList<>(layered));
    }

    private static void checkPrivate() throws IOException {
        if (!verified) {
            requirePrivate();
        }
    }

    /** Creates {@code dir} and missing ancestors, layering each directory that gets a new entry. */
    private static void makeDirectory(Path dir) throws IOException {
        if (Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        if (Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException("not a directory: " + dir);
        }
        Path parent = dir.getParent();
        makeDirectory(parent);
        layerIfNeeded(parent);
        Files.createDirectory(dir);
        ours.add(dir);
    }

    private static void layerIfNeeded(Path dir) throws IOException {
        if (!ours.contains(dir)) {
            layer(dir);
        }
    }

    /** Mounts a tmpfs over {@code dir} and puts every original entry back on it. */
    private static void layer(Path dir) throws IOException {
        Owner owner = Owner.of(dir);
        List<Path> names;
        try (Stream<Path> entries = Files.list(dir)) {
            names = entries.map(Path::getFileName).toList();
        }
        int fd = MountCalls.openPath(dir);
        try {
            MountCalls.tmpfs(dir, owner.mode, owner.uid, owner.gid);
            Path original = original(fd);
            for (Path name : names) {
                restore(original.resolve(name), dir.resolve(name));
            }
        } finally {
            MountCalls.close(fd);
        }
        layered.add(dir);
        ours.add(dir);
        LOG.log(System.Logger.Level.DEBUG, "layered {0} ({1} entries)", dir, names.size());
    }

    /** Recreates one original entry on the tmpfs: symlinks copied, anything else bound. */
    private static void restore(Path original, Path made) throws IOException {
        if (Files.isSymbolicLink(original)) {
            Files.createSymbolicLink(made, Files.readSymbolicLink(original));
        } else if (Files.isDirectory(original, LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectory(made);
            MountCalls.bind(original, made, true);
        } else {
            Files.createFile(made);
            MountCalls.bind(original, made, false);
        }
    }

    /** The directory behind descriptor {@code fd}, even when a mount now hides it. */
    private static Path original(int fd) {
        return Path.of("/proc/self/fd", Integer.toString(fd));
    }

    private static void copyTree(Path from, Path to) throws IOException {
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                Path made = to.resolve(from.relativize(dir).toString());
                if (!made.equals(to)) {
                    Files.copy(dir, made, StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                if (attrs.isRegularFile() || attrs.isSymbolicLink()) {
                    Files.copy(file, to.resolve(from.relativize(file).toString()),
                            StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
                } else {
                    LOG.log(System.Logger.Level.INFO, "private copy skips special file {0}", file);
                }
                return FileVisitResult.CONTINUE;
            }
        });
    }

    /** No longer ours once something else is mounted there. */
    private static void forgetBelow(Path dir) {
        ours.removeIf(p -> p.startsWith(dir));
    }

    /** Absolute, normalized, with the existing part's symlinks resolved (/var/run -> /run). */
    private static Path canonical(Path path) throws IOException {
        Path absolute = path.toAbsolutePath().normalize();
        Path existing = absolute;
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            return absolute;
        }
        return existing.toRealPath().resolve(existing.relativize(absolute).toString());
    }

    private static void requireDirectory(Path dir) throws IOException {
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException("not a directory: " + dir);
        }
    }

    /** Mode and owner a layer's tmpfs copies from the directory it covers. */
    private record Owner(int mode, int uid, int gid) {
        static Owner of(Path dir) throws IOException {
            Map<String, Object> unix = Files.readAttributes(dir, "unix:mode,uid,gid", LinkOption.NOFOLLOW_LINKS);
            return new Owner((Integer) unix.get("mode") & 07777, (Integer) unix.get("uid"), (Integer) unix.get("gid"));
        }
    }
}
