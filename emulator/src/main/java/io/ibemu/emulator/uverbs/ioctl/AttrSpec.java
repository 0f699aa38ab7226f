package io.ibemu.emulator.uverbs.ioctl;

import java.util.List;

/**
 * One attribute of a method, as UVERBS_ATTR_PTR_IN/PTR_OUT/IDR/FD/RAW_FD/ENUM_IN/IDRS_ARRAY
 * declare it (include/rdma/uverbs_ioctl.h): its id, type, whether it is mandatory, the length
 * bounds (for IDRS_ARRAY the element count), whether bytes past {@code maxLen} may be given if
 * zero (UVERBS_ATTR_STRUCT), and for objects the object id and access.
 *
 * @param elements for ENUM_IN, the PTR_IN spec of each element id
 * @param copied   UA_ALLOC_AND_COPY: a PTR_IN longer than 8 bytes is read while the attributes are
 *                 checked, so an unreadable one fails there (EFAULT)
 */
public record AttrSpec(int id, String name, AttrType type, boolean mandatory, int minLen, int maxLen,
                       boolean zeroTrailing, int objectId, Access access, List<AttrSpec> elements, Kernel since,
                       boolean copied) {

    /** UVERBS_ATTR_UHW_IN and _OUT: the driver's data, in the driver namespace (UVERBS_ID_DRIVER_NS). */
    public static final int UHW_IN = 0x1000;
    public static final int UHW_OUT = 0x1001;
    private static final int USHRT_MAX = 0xffff;

    private static AttrSpec ptr(int id, String name, AttrType type, int min, int max, boolean zeroTrailing) {
        return new AttrSpec(id, name, type, false, min, max, zeroTrailing, -1, null, List.of(), Kernel.oldest(), false);
    }

    /** UVERBS_ATTR_PTR_IN with UVERBS_ATTR_SIZE(min, max). */
    public static AttrSpec in(int id, String name, int min, int max) {
        return ptr(id, name, AttrType.PTR_IN, min, max, false);
    }

    /** UVERBS_ATTR_TYPE: exactly {@code size} bytes. */
    public static AttrSpec in(int id, String name, int size) {
        return in(id, name, size, size);
    }

    /** UVERBS_ATTR_MIN_SIZE: at least {@code min} bytes, up to USHRT_MAX. */
    public static AttrSpec inAtLeast(int id, String name, int min) {
        return in(id, name, min, USHRT_MAX);
    }

    /** UVERBS_ATTR_STRUCT: from offsetofend(last) to sizeof, and longer when the rest is zero. */
    public static AttrSpec inStruct(int id, String name, int end, int size) {
        return ptr(id, name, AttrType.PTR_IN, end, size, true);
    }

    /** UVERBS_ATTR_CONST_IN: a u64 whatever the enum or integer type. */
    public static AttrSpec constIn(int id, String name) {
        return in(id, name, 8, 8);
    }

    /** UVERBS_ATTR_FLAGS_IN: a u32 or a u64 (uverbs_get_flags64 takes both). */
    public static AttrSpec flagsIn(int id, String name) {
        return in(id, name, 4, 8);
    }

    public static AttrSpec out(int id, String name, int size) {
        return ptr(id, name, AttrType.PTR_OUT, size, size, false);
    }

    public static AttrSpec outAtLeast(int id, String name, int min) {
        return ptr(id, name, AttrType.PTR_OUT, min, USHRT_MAX, false);
    }

    public static AttrSpec outStruct(int id, String name, int end, int size) {
        return ptr(id, name, AttrType.PTR_OUT, end, size, true);
    }

    /** UVERBS_ATTR_IDR: a handle of object {@code objectId}. */
    public static AttrSpec idr(int id, String name, int objectId, Access access) {
        return new AttrSpec(id, name, AttrType.IDR, false, 0, 0, false, objectId, access, List.of(), Kernel.oldest(),
                false);
    }

    /** UVERBS_ATTR_FD: a descriptor of an FD object (async event file, completion channel). */
    public static AttrSpec fd(int id, String name, int objectId, Access access) {
        return new AttrSpec(id, name, AttrType.FD, false, 0, 0, false, objectId, access, List.of(), Kernel.oldest(),
                false);
    }

    /** UVERBS_ATTR_RAW_FD: any descriptor, its number in {@code data} (len 0). */
    public static AttrSpec rawFd(int id, String name) {
        return ptr(id, name, AttrType.RAW_FD, 0, 0, false);
    }

    /** UVERBS_ATTR_ENUM_IN: {@code attr_data.enum_data.elem_id} picks one of {@code elements}. */
    public static AttrSpec enumIn(int id, String name, AttrSpec... elements) {
        return new AttrSpec(id, name, AttrType.ENUM_IN, false, 0, 0, false, -1, null, List.of(elements),
                Kernel.oldest(), false);
    }

    /** UVERBS_ATTR_IDRS_ARRAY: between {@code min} and {@code max} handles of one object type. */
    public static AttrSpec idrs(int id, String name, int objectId, Access access, int min, int max) {
        return new AttrSpec(id, name, AttrType.IDRS_ARRAY, false, min, max, false, objectId, access, List.of(),
                Kernel.oldest(), false);
    }

    /** UVERBS_ATTR_UHW(), its first half: the driver's input of a method with udata. */
    public static AttrSpec uhwIn() {
        return inAtLeast(UHW_IN, "UHW_IN", 0);
    }

    /** UVERBS_ATTR_UHW(), its second half: the driver's output, flagged valid on any success. */
    public static AttrSpec uhwOut() {
        return outAtLeast(UHW_OUT, "UHW_OUT", 0);
    }

    /** UA_MANDATORY. */
    public AttrSpec required() {
        return new AttrSpec(id, name, type, true, minLen, maxLen, zeroTrailing, objectId, access, elements, since,
                copied);
    }

    /** UA_ALLOC_AND_COPY. */
    public AttrSpec allocAndCopy() {
        return new AttrSpec(id, name, type, mandatory, minLen, maxLen, zeroTrailing, objectId, access, elements,
                since, true);
    }

    /** Present from kernel release {@code k} on. */
    public AttrSpec since(Kernel k) {
        return new AttrSpec(id, name, type, mandatory, minLen, maxLen, zeroTrailing, objectId, access, elements, k,
                copied);
    }
}
