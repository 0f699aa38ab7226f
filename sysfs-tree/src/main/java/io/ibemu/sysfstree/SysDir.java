package io.ibemu.sysfstree;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Supplier;

/**
 * A directory of the tree. Thread-safe: entries may be added and removed from any thread while
 * the tree is mounted, and the mount sees each change at its next lookup.
 */
public final class SysDir extends KernfsNode {

    private final TreeContext tree;
    private final NavigableMap<String, KernfsNode> entries = new ConcurrentSkipListMap<>();

    SysDir(TreeContext tree) {
        super(tree.nextInode(), 0755);
        this.tree = tree;
    }

    /** The child directory {@code name}, created if absent; a file or link of that name is an error. */
    public SysDir dir(String name) {
        checkName(name);
        KernfsNode existing = entries.get(name);
        if (existing == null) {
            SysDir created = new SysDir(tree);
            existing = entries.putIfAbsent(name, created);
            if (existing == null) {
                tree.cache().entryChanged(this, name);
                tree.cache().attributesChanged(this); // the link count
                return created;
            }
        }
        if (existing instanceof SysDir dir) {
            return dir;
        }
        throw new IllegalStateException(name + " exists and is not a directory");
    }

    /** A read-only attribute, mode 0444. Replaces an entry of the same name. */
    public void attribute(String name, Supplier<String> show) {
        attribute(name, 0444, Objects.requireNonNull(show, "show"), null);
    }

    /** A read-write attribute, mode 0644. Replaces an entry of the same name. */
    public void attribute(String name, Supplier<String> show, AttributeStore store) {
        attribute(name, 0644, Objects.requireNonNull(show, "show"), Objects.requireNonNull(store, "store"));
    }

    /**
     * An attribute with an explicit mode; {@code show} or {@code store} may be null (write-only,
     * read-only). Opening needs both the mode bit and the method, as sysfs. Replaces an entry.
     */
    public void attribute(String name, int mode, Supplier<String> show, AttributeStore store) {
        bytesAttribute(name, mode, show == null ? null : () -> {
            String text = show.get();
            return text == null ? null : text.getBytes(StandardCharsets.UTF_8);
        }, store == null ? null : bytes -> store.store(new String(bytes, StandardCharsets.UTF_8)));
    }

    /**
     * An attribute whose value is bytes, shown and stored exactly (no character set between the
     * caller and the model, as node_desc in the kernel). Either method may be null. Replaces an entry.
     */
    public void bytesAttribute(String name, int mode, Supplier<byte[]> show, ByteStore store) {
        fallibleAttribute(name, mode, show == null ? null : show::get, store);
    }

    /**
     * An attribute whose show may fail with the kernel's errno (a value passed through from
     * another sysfs file, say). Either method may be null. Replaces an entry.
     */
    public void fallibleAttribute(String name, int mode, ByteShow show, ByteStore store) {
        checkName(name);
        put(name, new Attribute(tree.nextInode(), name, mode, show, store));
    }

    /** A symlink whose target is {@code target} as given (e.g. "../../devices/..."). Replaces an entry. */
    public void link(String name, String target) {
        checkName(name);
        put(name, new Link(tree.nextInode(), Objects.requireNonNull(target, "target")));
    }

    /** Removes the entry and its subtree; files still open on it then fail with ENODEV. */
    public void remove(String name) {
        KernfsNode removed = entries.remove(name);
        if (removed != null) {
            removed.detach();
            tree.cache().entryChanged(this, name);
            if (removed instanceof SysDir) {
                tree.cache().attributesChanged(this);
            }
        }
    }

    /**
     * Moves entry {@code from} to {@code to} (kernfs_rename within one parent): the same node,
     * inode and open files. False if {@code from} is missing or {@code to} exists.
     */
    public synchronized boolean rename(String from, String to) {
        checkName(to);
        KernfsNode node = entries.get(from);
        if (node == null || entries.putIfAbsent(to, node) != null) {
            return false;
        }
        entries.remove(from, node);
        return true;
    }

    public Optional<SysDir> subdir(String name) {
        return entries.get(name) instanceof SysDir dir ? Optional.of(dir) : Optional.empty();
    }

    /** A snapshot of the entry names, sorted. */
    public Set<String> names() {
        return Collections.unmodifiableSet(new TreeSet<>(entries.keySet()));
    }

    KernfsNode entry(String name) {
        return entries.get(name);
    }

    /** A weakly consistent view in name order: readdir's listing. */
    Iterable<Map.Entry<String, KernfsNode>> entries() {
        return entries.entrySet();
    }

    @Override
    void detach() {
        super.detach();
        entries.values().forEach(KernfsNode::detach);
    }

    @Override
    int fileType() {
        return S_IFDIR;
    }

    @Override
    long size() {
        return 0;
    }

    /** As kernfs: "." , the parent's entry and each subdirectory's "..". */
    @Override
    long linkCount() {
        long subdirs = entries.values().stream().filter(SysDir.class::isInstance).count();
        return 2 + subdirs;
    }

    private void put(String name, KernfsNode node) {
        KernfsNode replaced = entries.put(name, node);
        if (replaced != null) {
            replaced.detach();
        }
        tree.cache().entryChanged(this, name);
        if (replaced instanceof SysDir) {
            tree.cache().attributesChanged(this);
        }
    }

    private static void checkName(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty() || name.equals(".") || name.equals("..") || name.indexOf('/') >= 0
                || name.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("not a file name: \"" + name + "\"");
        }
    }
}
