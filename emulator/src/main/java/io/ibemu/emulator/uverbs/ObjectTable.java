package io.ibemu.emulator.uverbs;

import io.ibemu.kernel.Errno;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.function.Predicate;

/**
 * The handles of one uverbs file: {@code ufile->idr}, one xarray for every object type, so handles
 * are small integers allocated lowest-free from 0 across all types (xa_alloc with
 * XA_FLAGS_ALLOC). A lookup of a handle this file never issued (or has destroyed) is
 * {@code ENOENT}; of a handle that names an object of another type, {@code EINVAL}
 * (lookup_get_idr_uobject, rdma_lookup_get_uobject).
 */
final class ObjectTable {

    private final TreeMap<Integer, UObject<?>> objects = new TreeMap<>();
    /** Told of each new object: the device gives it its restrack id. */
    private final BiConsumer<ObjectType, Object> added;

    ObjectTable() {
        this((t, o) -> { });
    }

    ObjectTable(BiConsumer<ObjectType, Object> added) {
        this.added = added;
    }
    private long created; // creation order, for close-time cleanup newest first

    /** Allocates the lowest free handle for {@code object}. */
    synchronized <T> UObject<T> add(ObjectType type, T object, long userHandle) {
        int handle = lowestFree();
        UObject<T> u = new UObject<>(type, handle, object, userHandle, created++);
        objects.put(handle, u);
        added.accept(type, object);
        return u;
    }

    /**
     * idr_add_uobj for the ioctl path: the lowest free handle is taken now, for an object the
     * method's handler makes later; lookups do not find it until {@link #commit}.
     */
    synchronized UObject<Object> reserve(ObjectType type) {
        int handle = lowestFree();
        UObject<Object> u = new UObject<>(type, handle, null, 0, created++);
        objects.put(handle, u);
        return u;
    }

    /** The reserved handle now names {@code object} (rdma_alloc_commit_uobject). */
    synchronized <T> UObject<T> commit(UObject<?> reserved, T object, long userHandle) {
        UObject<T> u = new UObject<>(reserved.type(), reserved.handle(), object, userHandle, reserved.order());
        objects.replace(reserved.handle(), reserved, u);
        added.accept(u.type(), object);
        return u;
    }

    private int lowestFree() {
        int handle = 0;
        for (Integer used : objects.keySet()) {
            if (used != handle) {
                break;
            }
            handle++;
        }
        return handle;
    }

    /** The object of {@code type} at {@code handle}: ENOENT if none, EINVAL if of another type. */
    synchronized <T> UObject<T> get(ObjectType type, long handle) throws Errno {
        if (handle < 0) {
            throw Errno.of(Errno.EINVAL); // lookup_get_idr_uobject: an ioctl's s64 id below 0
        }
        UObject<?> u = handle > Integer.MAX_VALUE ? null : objects.get((int) handle);
        if (u == null || u.object() == null) {
            throw Errno.of(Errno.ENOENT);
        }
        if (u.type() != type) {
            throw Errno.of(Errno.EINVAL);
        }
        @SuppressWarnings("unchecked")
        UObject<T> typed = (UObject<T>) u;
        return typed;
    }

    /**
     * uobj_get_obj_read with the handler passing the lookup's error on (IS_ERR/PTR_ERR): ENOENT
     * for an unknown handle, EINVAL for one of another type. Debian's 6.1 kernel answers so for
     * every command probed (REG_MR, RESIZE_CQ, REQ_NOTIFY_CQ, CREATE_QP, MODIFY_QP, POST_SEND,
     * CREATE_SRQ, MODIFY_SRQ, CREATE_AH; KernelConformanceTest).
     */
    <T> T read(ObjectType type, long handle) throws Errno {
        UObject<T> u = get(type, handle);
        return u.object();
    }

    /** The model object, or null when the lookup fails. */
    <T> T find(ObjectType type, long handle) {
        try {
            UObject<T> u = get(type, handle);
            return u.object();
        } catch (Errno e) {
            return null;
        }
    }

    /** The same handle now names {@code object} (REREG_MR gives a new region with the old handle). */
    synchronized <T> UObject<T> replace(UObject<T> u, T object) {
        UObject<T> v = new UObject<>(u.type(), u.handle(), object, u.userHandle(), u.order());
        objects.replace(u.handle(), u, v);
        added.accept(u.type(), object); // rereg_mr: the new region is listed under a new id
        return v;
    }

    synchronized void remove(UObject<?> u) {
        objects.remove(u.handle(), u);
    }

    synchronized int count(ObjectType type) {
        int n = 0;
        for (UObject<?> u : objects.values()) {
            if (u.type() == type && u.object() != null) {
                n++;
            }
        }
        return n;
    }

    /** The objects matching {@code filter}, newest first: the order close-time cleanup tries them in. */
    synchronized List<UObject<?>> newestFirst(Predicate<UObject<?>> filter) {
        List<UObject<?>> list = new ArrayList<>();
        for (UObject<?> u : objects.values()) {
            if (u.object() != null && filter.test(u)) {
                list.add(u);
            }
        }
        list.sort((a, b) -> Long.compare(b.order(), a.order()));
        return list;
    }

    synchronized boolean isEmpty() {
        return objects.values().stream().allMatch(u -> u.object() == null);
    }
}
