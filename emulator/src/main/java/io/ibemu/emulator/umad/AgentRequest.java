package io.ibemu.emulator.umad;

import io.ibemu.emulator.abi.Ioc;
import io.ibemu.kernel.CField;
import io.ibemu.kernel.CStruct;

/**
 * {@code struct ib_user_mad_reg_req} (REGISTER_AGENT) and {@code struct ib_user_mad_reg_req2}
 * (REGISTER_AGENT2) decoded to one record. {@code methodMask} holds bits 0..127 as two longs,
 * bit i of the mask being bit (i % 64) of word (i / 64), as the kernel's unsigned longs are.
 */
public record AgentRequest(int qpn, int mgmtClass, int classVersion, long[] methodMask, int oui,
                           int rmppVersion, int flags) {

    public static final int MAGIC = 0x1b;
    /** IB_USER_MAD_USER_RMPP: the caller does RMPP itself; the only flag the kernel supports. */
    public static final int USER_RMPP = 1;
    public static final int FLAGS_CAP = USER_RMPP;

    /** struct ib_user_mad_reg_req (REGISTER_AGENT). */
    static final class V1 {
        static final CStruct LAYOUT = CStruct.named("ib_user_mad_reg_req").u32("id").packedUlongs("method_mask", 2)
                .u8("qpn").u8("mgmt_class").u8("mgmt_class_version").bytes("oui", 3).u8("rmpp_version").build();
        static final CField ID = LAYOUT.field("id");
        static final CField MASK_LO = LAYOUT.field("method_mask[0]");
        static final CField MASK_HI = LAYOUT.field("method_mask[1]");
        static final CField QPN = LAYOUT.field("qpn");
        static final CField MGMT_CLASS = LAYOUT.field("mgmt_class");
        static final CField CLASS_VERSION = LAYOUT.field("mgmt_class_version");
        static final CField OUI = LAYOUT.field("oui");
        static final CField RMPP_VERSION = LAYOUT.field("rmpp_version");
    }

    /** struct ib_user_mad_reg_req2 (REGISTER_AGENT2). */
    static final class V2 {
        static final CStruct LAYOUT = CStruct.named("ib_user_mad_reg_req2").u32("id").u32("qpn").u8("mgmt_class")
                .u8("mgmt_class_version").u16("res").u32("flags").u64("method_mask[0]").u64("method_mask[1]")
                .u32("oui").u8("rmpp_version").pad(1, 3).build();
        static final CField ID = LAYOUT.field("id");
        static final CField QPN = LAYOUT.field("qpn");
        static final CField MGMT_CLASS = LAYOUT.field("mgmt_class");
        static final CField CLASS_VERSION = LAYOUT.field("mgmt_class_version");
        static final CField FLAGS = LAYOUT.field("flags");
        static final CField MASK_LO = LAYOUT.field("method_mask[0]");
        static final CField MASK_HI = LAYOUT.field("method_mask[1]");
        static final CField OUI = LAYOUT.field("oui");
        static final CField RMPP_VERSION = LAYOUT.field("rmpp_version");
    }

    public static final int V1_SIZE = V1.LAYOUT.size();
    public static final int V2_SIZE = V2.LAYOUT.size();
    public static final int REGISTER_AGENT = Ioc.iowr(MAGIC, 1, V1_SIZE);
    public static final int UNREGISTER_AGENT = Ioc.iow(MAGIC, 2, 4);
    public static final int ENABLE_PKEY = Ioc.io(MAGIC, 3);
    public static final int REGISTER_AGENT2 = Ioc.iowr(MAGIC, 4, V2_SIZE);

    public static AgentRequest decodeV1(byte[] b) {
        return new AgentRequest(V1.QPN.getInt(b), V1.MGMT_CLASS.getInt(b), V1.CLASS_VERSION.getInt(b),
                new long[] {V1.MASK_LO.get(b, 0), V1.MASK_HI.get(b, 0)}, V1.OUI.getInt(b),
                V1.RMPP_VERSION.getInt(b), 0);
    }

    public static AgentRequest decodeV2(byte[] b) {
        return new AgentRequest(V2.QPN.getInt(b), V2.MGMT_CLASS.getInt(b), V2.CLASS_VERSION.getInt(b),
                new long[] {V2.MASK_LO.get(b, 0), V2.MASK_HI.get(b, 0)}, V2.OUI.getInt(b),
                V2.RMPP_VERSION.getInt(b), V2.FLAGS.getInt(b));
    }
}
