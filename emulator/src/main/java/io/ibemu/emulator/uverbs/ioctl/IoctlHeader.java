package io.ibemu.emulator.uverbs.ioctl;

import io.ibemu.kernel.CField;
import io.ibemu.kernel.CStruct;

/**
 * struct ib_uverbs_ioctl_hdr (include/uapi/rdma/rdma_user_ioctl_cmds.h), the argument of
 * RDMA_VERBS_IOCTL; the attributes (struct ib_uverbs_attr, 16 bytes each) follow it.
 */
public record IoctlHeader(int length, int objectId, int methodId, int numAttrs, long reserved1, long driverId,
                          long reserved2) {

    public static final CStruct LAYOUT = CStruct.named("ib_uverbs_ioctl_hdr")
            .u16("length").u16("object_id").u16("method_id").u16("num_attrs").u64("reserved1").u32("driver_id")
            .u32("reserved2").build();
    public static final CStruct ATTR = CStruct.named("ib_uverbs_attr")
            .u16("attr_id").u16("len").u16("flags").u16("attr_data").u64("data").build();
    public static final int SIZE = LAYOUT.size();
    /** RDMA_VERBS_IOCTL = _IOWR(RDMA_IOCTL_MAGIC 0x1b, 1, struct ib_uverbs_ioctl_hdr). */
    public static final int RDMA_VERBS_IOCTL = (3 << 30) | (SIZE << 16) | (0x1b << 8) | 1;

    private static final CField LENGTH = LAYOUT.field("length");
    private static final CField OBJECT = LAYOUT.field("object_id");
    private static final CField METHOD = LAYOUT.field("method_id");
    private static final CField NUM_ATTRS = LAYOUT.field("num_attrs");
    private static final CField RESERVED1 = LAYOUT.field("reserved1");
    private static final CField DRIVER = LAYOUT.field("driver_id");
    private static final CField RESERVED2 = LAYOUT.field("reserved2");

    public static IoctlHeader decode(byte[] b) {
        return new IoctlHeader((int) LENGTH.get(b, 0), (int) OBJECT.get(b, 0), (int) METHOD.get(b, 0),
                (int) NUM_ATTRS.get(b, 0), RESERVED1.get(b, 0), DRIVER.get(b, 0), RESERVED2.get(b, 0));
    }

    /** struct_size(hdr, attrs, num_attrs). */
    public int expectedLength() {
        return SIZE + numAttrs * ATTR.size();
    }
}
