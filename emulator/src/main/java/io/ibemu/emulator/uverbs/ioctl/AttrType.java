package io.ibemu.emulator.uverbs.ioctl;

/**
 * enum uverbs_attr_type: how an attribute's {@code len} and {@code data} are read. CONST_IN and
 * FLAGS_IN are PTR_IN with fixed sizes, as the kernel's macros make them ({@link AttrSpec}).
 */
public enum AttrType {
    PTR_IN,
    PTR_OUT,
    IDR,
    FD,
    RAW_FD,
    ENUM_IN,
    IDRS_ARRAY
}
