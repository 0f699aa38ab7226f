package io.ibemu.emulator.uverbs.ioctl;

/** enum uverbs_obj_access: what an IDR or FD attribute does with the object it names. */
public enum Access {
    /** rdma_alloc_begin_uobject: a new object; its handle or descriptor is written back. */
    NEW,
    /** rdma_lookup_get_uobject(UVERBS_LOOKUP_READ). */
    READ,
    /** rdma_lookup_get_uobject(UVERBS_LOOKUP_WRITE). */
    WRITE,
    /** The method destroys the object before its handler runs (destroy_bkey). */
    DESTROY
}
