package io.ibemu.emulator.uverbs.ioctl;

import io.ibemu.kernel.Errno;

/**
 * The file's objects as the ioctl path reaches them (rdma_core.c): lookups by handle, new
 * handles reserved before the handler runs and committed or aborted after it.
 */
public interface UObjects {

    /** rdma_lookup_get_uobject: ENOENT for a handle never given out, EINVAL for another type. */
    Object lookup(int objectId, Access access, long id) throws Errno;

    /**
     * rdma_alloc_begin_uobject: a new object of {@code objectId}, its id reserved (an IDR handle,
     * or for an FD object the descriptor to come); EINVAL without a context.
     */
    Pending allocate(int objectId) throws Errno;

    /** uobj_destroy of an object a DESTROY attribute found; EBUSY while others use it. */
    void destroy(Object uobject) throws Errno;

    /** The device was removed: only destroy methods still run (uverbs_disassociate_api). */
    boolean gone();

    /** A new object between allocation and the end of the method. */
    interface Pending {
        /** The handle written back into the caller's attribute; -1 for a descriptor not yet installed. */
        long id();

        /** uverbs_finalize_object(..., commit): the method failed or succeeded. */
        void finish(boolean commit);
    }
}
