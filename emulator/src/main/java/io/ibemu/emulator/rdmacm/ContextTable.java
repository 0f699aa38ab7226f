package io.ibemu.emulator.rdmacm;

import io.ibemu.kernel.Errno;

import java.util.TreeMap;

/**
 * ucma.c's {@code ctx_table}: one id space for every open file of the device (an xarray that
 * allocates the lowest free id from 0). A lookup of an id nobody holds is ENOENT, of another
 * file's id EINVAL (_ucma_find_context).
 */
final class ContextTable {
    private final TreeMap<Integer, UcmaContext> byId = new TreeMap<>(); // guarded by this

    synchronized UcmaContext allocate(UcmaFile file) {
        int id = lowestFree(byId);
        UcmaContext c = new UcmaContext(id, file);
        byId.put(id, c);
        return c;
    }

    /** ucma_get_ctx: as find, and ENXIO once the context was closed by a device removal. */
    synchronized UcmaContext get(UcmaFile file, int id) throws Errno {
        UcmaContext c = find(file, id);
        if (c.closed) {
            throw Errno.of(Errno.ENXIO);
        }
        return c;
    }

    /** _ucma_find_context. */
    private UcmaContext find(UcmaFile file, int id) throws Errno {
        UcmaContext c = byId.get(id);
        if (c == null) {
            throw Errno.of(Errno.ENOENT);
        }
        if (c.file != file) {
            throw Errno.of(Errno.EINVAL);
        }
        return c;
    }

    /** Takes {@code id} out of the table (DESTROY_ID's first step, closed contexts too): the context. */
    synchronized UcmaContext remove(UcmaFile file, int id) throws Errno {
        UcmaContext c = find(file, id);
        byId.remove(id);
        return c;
    }

    synchronized boolean holds(UcmaContext c) {
        return byId.get(c.id) == c;
    }

    synchronized void remove(UcmaContext c) {
        byId.remove(c.id, c);
    }

    /** xa_alloc's choice in an allocating xarray: the lowest id {@code taken} does not hold, from 0. */
    static int lowestFree(TreeMap<Integer, ?> taken) {
        int id = 0;
        for (int t : taken.keySet()) {
            if (t != id) {
                break;
            }
            id++;
        }
        return id;
    }

    synchronized int size() {
        return byId.size();
    }
}
