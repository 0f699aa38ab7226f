package io.ibemu.emulator.uverbs.ioctl;

import io.ibemu.kernel.CField;

/**
 * One struct ib_uverbs_attr as the caller wrote it, and its place in the caller's array.
 *
 * @param attrData the attr_data union: {@code reserved}, or {@code enum_data.elem_id} in its low byte
 *                 and {@code enum_data.reserved} in its high byte
 */
record UserAttr(int index, int attrId, int len, int flags, int attrData, long data) {

    static final int MANDATORY = 1;
    static final int VALID_OUTPUT = 2;
    private static final CField ID = IoctlHeader.ATTR.field("attr_id");
    private static final CField LEN = IoctlHeader.ATTR.field("len");
    private static final CField FLAGS = IoctlHeader.ATTR.field("flags");
    private static final CField ATTR_DATA = IoctlHeader.ATTR.field("attr_data");
    private static final CField DATA = IoctlHeader.ATTR.field("data");
    static final int SIZE = IoctlHeader.ATTR.size();
    static final int FLAGS_OFFSET = FLAGS.offset();
    static final int DATA_OFFSET = DATA.offset();

    static UserAttr decode(byte[] b, int index) {
        int base = index * SIZE;
        return new UserAttr(index, (int) ID.get(b, base), (int) LEN.get(b, base), (int) FLAGS.get(b, base),
                (int) ATTR_DATA.get(b, base), DATA.get(b, base));
    }

    int elemId() {
        return attrData & 0xff;
    }

    int enumReserved() {
        return attrData >>> 8;
    }

    /** uverbs_attr_ptr_is_inline: up to 8 bytes travel in {@code data} itself. */
    boolean inline() {
        return len <= 8;
    }
}
