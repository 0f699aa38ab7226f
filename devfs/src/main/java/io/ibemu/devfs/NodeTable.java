package io.ibemu.devfs;

import java.util.HashMap;
import java.util.Map;

/**
 * The FUSE node ids of a flat directory's names, with the kernel's lookup counts: LOOKUP adds
 * one, FORGET takes its count back, and a name no longer looked up loses its id (libfuse's
 * high-level node table, for one directory). The root is node 1.
 */
final class NodeTable {

    static final long ROOT = 1;

    private record Node(String name, long id, long lookups) {
    }

    private final Map<String, Node> byName = new HashMap<>(); // guarded by this
    private final Map<Long, Node> byId = new HashMap<>(); // guarded by this
    private long nextId = ROOT + 1; // guarded by this

    /** LOOKUP of {@code name}: its id, counted once more. */
    synchronized long lookup(String name) {
        Node node = byName.get(name);
        Node counted = node == null ? new Node(name, nextId++, 1) : new Node(name, node.id(), node.lookups() + 1);
        put(counted);
        return counted.id();
    }

    /** The id a directory listing shows for {@code name} (kept until a FORGET after a lookup). */
    synchronized long inode(String name) {
        Node node = byName.get(name);
        if (node == null) {
            node = new Node(name, nextId++, 0);
            put(node);
        }
        return node.id();
    }

    /** The name of node {@code id}, or null (the root has none). */
    synchronized String name(long id) {
        Node node = byId.get(id);
        return node == null ? null : node.name();
    }

    /** FORGET: the kernel dropped {@code count} lookups of node {@code id}. */
    synchronized void forget(long id, long count) {
        Node node = byId.get(id);
        if (node == null) {
            return;
        }
        long left = node.lookups() - count;
        if (left > 0) {
            put(new Node(node.name(), id, left));
        } else {
            byId.remove(id);
            byName.remove(node.name());
        }
    }

    synchronized int size() {
        return byId.size();
    }

    private void put(Node node) {
        byName.put(node.name(), node);
        byId.put(node.id(), node);
    }
}
