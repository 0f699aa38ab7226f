package io.ibemu.emulator.umad;

import io.ibemu.emulator.abi.CField;
import io.ibemu.emulator.abi.Ioc;

/**
 * {@code struct ib_user_mad_reg_req} (REGISTER_AGENT) and {@code struct ib_user_mad_reg_req2}
 * (REGISTER_AGENT2) decoded to one record. {@code methodMask} holds bits 0..127 as two longs,
 * bit i of the mask being bit (i % 64) of word (i / 64), as the kernel's unsigned longs are.
 */
public record AgentRequest(int qpn, int mgmtClass, int classVersion, long[] methodMask, int oui,
                           int rmppVersion, int flags) {

    public static final int MAGIC = 0x1b;
    public static final int V1_SIZE = 28;
    public static final int V2_SIZE = 40;
    /** IB_USER_MAD_USER_RMPP: the caller does RMPP itself; the only flag the kernel supports. */
    public static final int USER_RMPP = 1;
    public static final int FLAGS_CAP = USER_RMPP;

    static final class V1 {
        static final CField ID = CField.host("id", 0, 4);
        static final CField MASK_LO = CField.host("method_mask[0]", 4, 8);
        static final CField MASK_HI = CField.host("method_mask[1]", 12, 8);
        static final CField QPN = CField.host("qpn", 20, 1);
        static final CField MGMT_CLASS = CField.host("mgmt_class", 21, 1);
        static final CField CLASS_VERSION = CField.host("mgmt_class_version", 22, 1);
        static final CField OUI = CField.be("oui", 23, 3);
        static final CField RMPP_VERSION = CField.host("rmpp_version", 26, 1);
    }

    static final class V2 {
        static final CField ID = CField.host("id", 0, 4);
        static final CField QPN = CField.host("qpn", 4, 4);
        static final CField MGMT_CLASS = CField.host("mgmt_class", 8, 1);
        static final CField CLASS_VERSION = CField.host("mgmt_class_version", 9, 1);
        static final CField FLAGS = CField.host("flags", 12, 4);
        static final CField MASK_LO = CField.host("method_mask[0]", 16, 8);
        static final CField MASK_HI = CField.host("method_mask[1]", 24, 8);
        static final CField OUI = CField.host("oui", 32, 4);
        static final CField RMPP_VERSION = CField.host("rmpp_version", 36, 1);
    }

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
