package io.ibemu.emulator.mad;

import java.util.Arrays;

/**
 * PortInfo (IBA 14.2.5.6, ib_types.h ib_port_info_t): 64 bytes, every field including
 * CapabilityMask2 and the LinkSpeedExt fields. Enumerated values: {@link #STATE_DOWN} ...,
 * {@link #PHYS_POLLING} ..., MTU codes 1..5 = 256..4096, VL codes 1..5 = VL0, VL0-1, VL0-3, VL0-7,
 * VL0-14.
 */
public record PortInfo(
        long mKey,
        long gidPrefix,
        int lid,
        int masterSmLid,
        int capabilityMask,
        int diagCode,
        int mKeyLeasePeriod,
        int localPortNum,
        int linkWidthEnabled,
        int linkWidthSupported,
        int linkWidthActive,
        int linkSpeedSupported,
        int portState,
        int portPhysicalState,
        int linkDownDefaultState,
        int mKeyProtectBits,
        int lmc,
        int linkSpeedActive,
        int linkSpeedEnabled,
        int neighborMtu,
        int masterSmSl,
        int vlCap,
        int initType,
        int vlHighLimit,
        int vlArbitrationHighCap,
        int vlArbitrationLowCap,
        int initTypeReply,
        int mtuCap,
        int vlStallCount,
        int hoqLife,
        int operationalVls,
        boolean partitionEnforcementInbound,
        boolean partitionEnforcementOutbound,
        boolean filterRawInbound,
        boolean filterRawOutbound,
        int mKeyViolations,
        int pKeyViolations,
        int qKeyViolations,
        int guidCap,
        boolean clientReregister,
        int multicastPKeyTrapSuppressionEnabled,
        int subnetTimeout,
        int respTimeValue,
        int localPhyErrors,
        int overrunErrors,
        int maxCreditHint,
        int linkRoundTripLatency,
        int capabilityMask2,
        int linkSpeedExtActive,
        int linkSpeedExtSupported,
        int linkSpeedExtEnabled) {

    public static final int STATE_NO_CHANGE = 0;
    public static final int STATE_DOWN = 1;
    public static final int STATE_INIT = 2;
    public static final int STATE_ARMED = 3;
    public static final int STATE_ACTIVE = 4;
    public static final int PHYS_NO_CHANGE = 0;
    public static final int PHYS_SLEEP = 1;
    public static final int PHYS_POLLING = 2;
    public static final int PHYS_DISABLED = 3;
    public static final int PHYS_LINK_UP = 5;

    /** CapabilityMask bits (ib_types.h IB_PORT_CAP_*). */
    public static final int CAP_IS_SM = 0x00000002;
    public static final int CAP_HAS_NOTICE = 0x00000004;
    public static final int CAP_HAS_TRAP = 0x00000008;
    public static final int CAP_HAS_AUTOMATIC_MIGRATION = 0x00000020;
    public static final int CAP_HAS_SL_MAP = 0x00000040;
    public static final int CAP_HAS_LED_INFO = 0x00000200;
    public static final int CAP_SM_DISABLED = 0x00000400;
    public static final int CAP_HAS_SYSTEM_IMAGE_GUID = 0x00000800;
    public static final int CAP_HAS_EXTENDED_SPEEDS = 0x00004000;
    public static final int CAP_HAS_CAPABILITY_MASK2 = 0x00008000;
    public static final int CAP_HAS_COMMUNICATION_MANAGEMENT = 0x00010000;
    public static final int CAP_HAS_VENDOR_CLASS = 0x00100000;
    public static final int CAP_HAS_CAPABILITY_MASK_NOTICE = 0x00400000;
    public static final int CAP_HAS_CLIENT_REREGISTRATION = 0x02000000;
    /** CapabilityMask2 bits (ib_types.h IB_PORT_CAP2_*; NDR as ibsim sets it). */
    public static final int CAP2_IS_PORT_INFO_EXTENDED_SUPPORTED = 0x0002;
    public static final int CAP2_IS_LINK_WIDTH_2X_SUPPORTED = 0x0010;
    public static final int CAP2_IS_LINK_SPEED_HDR_SUPPORTED = 0x0020;
    public static final int CAP2_IS_LINK_SPEED_NDR_SUPPORTED = 0x0400;

    public static final Layout LAYOUT = Layout.of("PortInfo", 64,
            Field.of("mKey", "Mkey", 0, 64),
            Field.of("gidPrefix", "GidPrefix", 64, 64),
            Field.of("lid", "Lid", 128, 16),
            Field.of("masterSmLid", "SMLid", 144, 16),
            Field.of("capabilityMask", "CapMask", 160, 32),
            Field.of("diagCode", "DiagCode", 192, 16),
            Field.of("mKeyLeasePeriod", "MkeyLeasePeriod", 208, 16),
            Field.of("localPortNum", "LocalPort", 224, 8),
            Field.of("linkWidthEnabled", "LinkWidthEnabled", 232, 8),
            Field.of("linkWidthSupported", "LinkWidthSupported", 240, 8),
            Field.of("linkWidthActive", "LinkWidthActive", 248, 8),
            Field.of("linkSpeedSupported", "LinkSpeedSupported", 256, 4),
            Field.of("portState", "LinkState", 260, 4),
            Field.of("portPhysicalState", "PhysLinkState", 264, 4),
            Field.of("linkDownDefaultState", "LinkDownDefState", 268, 4),
            Field.of("mKeyProtectBits", "ProtectBits", 272, 2),
            Field.of("lmc", "LMC", 277, 3),
            Field.of("linkSpeedActive", "LinkSpeedActive", 280, 4),
            Field.of("linkSpeedEnabled", "LinkSpeedEnabled", 284, 4),
            Field.of("neighborMtu", "NeighborMTU", 288, 4),
            Field.of("masterSmSl", "SMSL", 292, 4),
            Field.of("vlCap", "VLCap", 296, 4),
            Field.of("initType", "InitType", 300, 4),
            Field.of("vlHighLimit", "VLHighLimit", 304, 8),
            Field.of("vlArbitrationHighCap", "VLArbHighCap", 312, 8),
            Field.of("vlArbitrationLowCap", "VLArbLowCap", 320, 8),
            Field.of("initTypeReply", "InitReply", 328, 4),
            Field.of("mtuCap", "MtuCap", 332, 4),
            Field.of("vlStallCount", "VLStallCount", 336, 3),
            Field.of("hoqLife", "HoqLife", 339, 5),
            Field.of("operationalVls", "OperVLs", 344, 4),
            Field.of("partitionEnforcementInbound", "PartEnforceInb", 348, 1),
            Field.of("partitionEnforcementOutbound", "PartEnforceOutb", 349, 1),
            Field.of("filterRawInbound", "FilterRawInb", 350, 1),
            Field.of("filterRawOutbound", "FilterRawOutb", 351, 1),
            Field.of("mKeyViolations", "MkeyViolations", 352, 16),
            Field.of("pKeyViolations", "PkeyViolations", 368, 16),
            Field.of("qKeyViolations", "QkeyViolations", 384, 16),
            Field.of("guidCap", "GuidCap", 400, 8),
            Field.of("clientReregister", "ClientReregister", 408, 1),
            Field.of("multicastPKeyTrapSuppressionEnabled", "McastPkeyTrapSuppressionEnabled", 409, 2),
            Field.of("subnetTimeout", "SubnetTimeout", 411, 5),
            Field.of("respTimeValue", "RespTimeVal", 419, 5),
            Field.of("localPhyErrors", "LocalPhysErr", 424, 4),
            Field.of("overrunErrors", "OverrunErr", 428, 4),
            Field.of("maxCreditHint", "MaxCreditHint", 432, 16),
            Field.of("linkRoundTripLatency", "RoundTrip", 456, 24),
            Field.of("capabilityMask2", "CapabilityMask2", 480, 16),
            Field.of("linkSpeedExtActive", "LinkSpeedExtActive", 496, 4),
            Field.of("linkSpeedExtSupported", "LinkSpeedExtSupported", 500, 4),
            Field.of("linkSpeedExtEnabled", "LinkSpeedExtEnabled", 507, 5));
    public static final RecordCodec<PortInfo> CODEC = RecordCodec.of(PortInfo.class, LAYOUT);

    /**
     * Plain code for what every sweep reads and writes: the fields are still the ones
     * {@link #LAYOUT} declares, looked up once; {@code AttributeCodecTest} checks this against
     * {@link #CODEC}, the reflective codec, which stays for dumps and the other attributes.
     */
    private static final class F {
        static final Field M_KEY = LAYOUT.field("mKey");
        static final Field GID_PREFIX = LAYOUT.field("gidPrefix");
        static final Field LID = LAYOUT.field("lid");
        static final Field MASTER_SM_LID = LAYOUT.field("masterSmLid");
        static final Field CAPABILITY_MASK = LAYOUT.field("capabilityMask");
        static final Field DIAG_CODE = LAYOUT.field("diagCode");
        static final Field M_KEY_LEASE_PERIOD = LAYOUT.field("mKeyLeasePeriod");
        static final Field LOCAL_PORT_NUM = LAYOUT.field("localPortNum");
        static final Field LINK_WIDTH_ENABLED = LAYOUT.field("linkWidthEnabled");
        static final Field LINK_WIDTH_SUPPORTED = LAYOUT.field("linkWidthSupported");
        static final Field LINK_WIDTH_ACTIVE = LAYOUT.field("linkWidthActive");
        static final Field LINK_SPEED_SUPPORTED = LAYOUT.field("linkSpeedSupported");
        static final Field PORT_STATE = LAYOUT.field("portState");
        static final Field PORT_PHYSICAL_STATE = LAYOUT.field("portPhysicalState");
        static final Field LINK_DOWN_DEFAULT_STATE = LAYOUT.field("linkDownDefaultState");
        static final Field M_KEY_PROTECT_BITS = LAYOUT.field("mKeyProtectBits");
        static final Field LMC = LAYOUT.field("lmc");
        static final Field LINK_SPEED_ACTIVE = LAYOUT.field("linkSpeedActive");
        static final Field LINK_SPEED_ENABLED = LAYOUT.field("linkSpeedEnabled");
        static final Field NEIGHBOR_MTU = LAYOUT.field("neighborMtu");
        static final Field MASTER_SM_SL = LAYOUT.field("masterSmSl");
        static final Field VL_CAP = LAYOUT.field("vlCap");
        static final Field INIT_TYPE = LAYOUT.field("initType");
        static final Field VL_HIGH_LIMIT = LAYOUT.field("vlHighLimit");
        static final Field VL_ARBITRATION_HIGH_CAP = LAYOUT.field("vlArbitrationHighCap");
        static final Field VL_ARBITRATION_LOW_CAP = LAYOUT.field("vlArbitrationLowCap");
        static final Field INIT_TYPE_REPLY = LAYOUT.field("initTypeReply");
        static final Field MTU_CAP = LAYOUT.field("mtuCap");
        static final Field VL_STALL_COUNT = LAYOUT.field("vlStallCount");
        static final Field HOQ_LIFE = LAYOUT.field("hoqLife");
        static final Field OPERATIONAL_VLS = LAYOUT.field("operationalVls");
        static final Field PARTITION_ENFORCEMENT_INBOUND = LAYOUT.field("partitionEnforcementInbound");
        static final Field PARTITION_ENFORCEMENT_OUTBOUND = LAYOUT.field("partitionEnforcementOutbound");
        static final Field FILTER_RAW_INBOUND = LAYOUT.field("filterRawInbound");
        static final Field FILTER_RAW_OUTBOUND = LAYOUT.field("filterRawOutbound");
        static final Field M_KEY_VIOLATIONS = LAYOUT.field("mKeyViolations");
        static final Field P_KEY_VIOLATIONS = LAYOUT.field("pKeyViolations");
        static final Field Q_KEY_VIOLATIONS = LAYOUT.field("qKeyViolations");
        static final Field GUID_CAP = LAYOUT.field("guidCap");
        static final Field CLIENT_REREGISTER = LAYOUT.field("clientReregister");
        static final Field MULTICAST_PKEY_TRAP_SUPPRESSION_ENABLED = LAYOUT.field("multicastPKeyTrapSuppressionEnabled");
        static final Field SUBNET_TIMEOUT = LAYOUT.field("subnetTimeout");
        static final Field RESP_TIME_VALUE = LAYOUT.field("respTimeValue");
        static final Field LOCAL_PHY_ERRORS = LAYOUT.field("localPhyErrors");
        static final Field OVERRUN_ERRORS = LAYOUT.field("overrunErrors");
        static final Field MAX_CREDIT_HINT = LAYOUT.field("maxCreditHint");
        static final Field LINK_ROUND_TRIP_LATENCY = LAYOUT.field("linkRoundTripLatency");
        static final Field CAPABILITY_MASK2 = LAYOUT.field("capabilityMask2");
        static final Field LINK_SPEED_EXT_ACTIVE = LAYOUT.field("linkSpeedExtActive");
        static final Field LINK_SPEED_EXT_SUPPORTED = LAYOUT.field("linkSpeedExtSupported");
        static final Field LINK_SPEED_EXT_ENABLED = LAYOUT.field("linkSpeedExtEnabled");
    }

    public static PortInfo decode(byte[] b, int offset) {
        return new PortInfo(
                F.M_KEY.get(b, offset),
                F.GID_PREFIX.get(b, offset),
                (int) F.LID.get(b, offset),
                (int) F.MASTER_SM_LID.get(b, offset),
                (int) F.CAPABILITY_MASK.get(b, offset),
                (int) F.DIAG_CODE.get(b, offset),
                (int) F.M_KEY_LEASE_PERIOD.get(b, offset),
                (int) F.LOCAL_PORT_NUM.get(b, offset),
                (int) F.LINK_WIDTH_ENABLED.get(b, offset),
                (int) F.LINK_WIDTH_SUPPORTED.get(b, offset),
                (int) F.LINK_WIDTH_ACTIVE.get(b, offset),
                (int) F.LINK_SPEED_SUPPORTED.get(b, offset),
                (int) F.PORT_STATE.get(b, offset),
                (int) F.PORT_PHYSICAL_STATE.get(b, offset),
                (int) F.LINK_DOWN_DEFAULT_STATE.get(b, offset),
                (int) F.M_KEY_PROTECT_BITS.get(b, offset),
                (int) F.LMC.get(b, offset),
                (int) F.LINK_SPEED_ACTIVE.get(b, offset),
                (int) F.LINK_SPEED_ENABLED.get(b, offset),
                (int) F.NEIGHBOR_MTU.get(b, offset),
                (int) F.MASTER_SM_SL.get(b, offset),
                (int) F.VL_CAP.get(b, offset),
                (int) F.INIT_TYPE.get(b, offset),
                (int) F.VL_HIGH_LIMIT.get(b, offset),
                (int) F.VL_ARBITRATION_HIGH_CAP.get(b, offset),
                (int) F.VL_ARBITRATION_LOW_CAP.get(b, offset),
                (int) F.INIT_TYPE_REPLY.get(b, offset),
                (int) F.MTU_CAP.get(b, offset),
                (int) F.VL_STALL_COUNT.get(b, offset),
                (int) F.HOQ_LIFE.get(b, offset),
                (int) F.OPERATIONAL_VLS.get(b, offset),
                F.PARTITION_ENFORCEMENT_INBOUND.get(b, offset) != 0,
                F.PARTITION_ENFORCEMENT_OUTBOUND.get(b, offset) != 0,
                F.FILTER_RAW_INBOUND.get(b, offset) != 0,
                F.FILTER_RAW_OUTBOUND.get(b, offset) != 0,
                (int) F.M_KEY_VIOLATIONS.get(b, offset),
                (int) F.P_KEY_VIOLATIONS.get(b, offset),
                (int) F.Q_KEY_VIOLATIONS.get(b, offset),
                (int) F.GUID_CAP.get(b, offset),
                F.CLIENT_REREGISTER.get(b, offset) != 0,
                (int) F.MULTICAST_PKEY_TRAP_SUPPRESSION_ENABLED.get(b, offset),
                (int) F.SUBNET_TIMEOUT.get(b, offset),
                (int) F.RESP_TIME_VALUE.get(b, offset),
                (int) F.LOCAL_PHY_ERRORS.get(b, offset),
                (int) F.OVERRUN_ERRORS.get(b, offset),
                (int) F.MAX_CREDIT_HINT.get(b, offset),
                (int) F.LINK_ROUND_TRIP_LATENCY.get(b, offset),
                (int) F.CAPABILITY_MASK2.get(b, offset),
                (int) F.LINK_SPEED_EXT_ACTIVE.get(b, offset),
                (int) F.LINK_SPEED_EXT_SUPPORTED.get(b, offset),
                (int) F.LINK_SPEED_EXT_ENABLED.get(b, offset));
    }

    /** Writes this at {@code offset}, reserved bits zero. */
    public void encode(byte[] b, int offset) {
        Arrays.fill(b, offset, offset + LAYOUT.sizeBytes(), (byte) 0);
        F.M_KEY.set(b, offset, mKey);
        F.GID_PREFIX.set(b, offset, gidPrefix);
        F.LID.set(b, offset, lid & 0xFFFFFFFFL);
        F.MASTER_SM_LID.set(b, offset, masterSmLid & 0xFFFFFFFFL);
        F.CAPABILITY_MASK.set(b, offset, capabilityMask & 0xFFFFFFFFL);
        F.DIAG_CODE.set(b, offset, diagCode & 0xFFFFFFFFL);
        F.M_KEY_LEASE_PERIOD.set(b, offset, mKeyLeasePeriod & 0xFFFFFFFFL);
        F.LOCAL_PORT_NUM.set(b, offset, localPortNum & 0xFFFFFFFFL);
        F.LINK_WIDTH_ENABLED.set(b, offset, linkWidthEnabled & 0xFFFFFFFFL);
        F.LINK_WIDTH_SUPPORTED.set(b, offset, linkWidthSupported & 0xFFFFFFFFL);
        F.LINK_WIDTH_ACTIVE.set(b, offset, linkWidthActive & 0xFFFFFFFFL);
        F.LINK_SPEED_SUPPORTED.set(b, offset, linkSpeedSupported & 0xFFFFFFFFL);
        F.PORT_STATE.set(b, offset, portState & 0xFFFFFFFFL);
        F.PORT_PHYSICAL_STATE.set(b, offset, portPhysicalState & 0xFFFFFFFFL);
        F.LINK_DOWN_DEFAULT_STATE.set(b, offset, linkDownDefaultState & 0xFFFFFFFFL);
        F.M_KEY_PROTECT_BITS.set(b, offset, mKeyProtectBits & 0xFFFFFFFFL);
        F.LMC.set(b, offset, lmc & 0xFFFFFFFFL);
        F.LINK_SPEED_ACTIVE.set(b, offset, linkSpeedActive & 0xFFFFFFFFL);
        F.LINK_SPEED_ENABLED.set(b, offset, linkSpeedEnabled & 0xFFFFFFFFL);
        F.NEIGHBOR_MTU.set(b, offset, neighborMtu & 0xFFFFFFFFL);
        F.MASTER_SM_SL.set(b, offset, masterSmSl & 0xFFFFFFFFL);
        F.VL_CAP.set(b, offset, vlCap & 0xFFFFFFFFL);
        F.INIT_TYPE.set(b, offset, initType & 0xFFFFFFFFL);
        F.VL_HIGH_LIMIT.set(b, offset, vlHighLimit & 0xFFFFFFFFL);
        F.VL_ARBITRATION_HIGH_CAP.set(b, offset, vlArbitrationHighCap & 0xFFFFFFFFL);
        F.VL_ARBITRATION_LOW_CAP.set(b, offset, vlArbitrationLowCap & 0xFFFFFFFFL);
        F.INIT_TYPE_REPLY.set(b, offset, initTypeReply & 0xFFFFFFFFL);
        F.MTU_CAP.set(b, offset, mtuCap & 0xFFFFFFFFL);
        F.VL_STALL_COUNT.set(b, offset, vlStallCount & 0xFFFFFFFFL);
        F.HOQ_LIFE.set(b, offset, hoqLife & 0xFFFFFFFFL);
        F.OPERATIONAL_VLS.set(b, offset, operationalVls & 0xFFFFFFFFL);
        F.PARTITION_ENFORCEMENT_INBOUND.set(b, offset, partitionEnforcementInbound ? 1 : 0);
        F.PARTITION_ENFORCEMENT_OUTBOUND.set(b, offset, partitionEnforcementOutbound ? 1 : 0);
        F.FILTER_RAW_INBOUND.set(b, offset, filterRawInbound ? 1 : 0);
        F.FILTER_RAW_OUTBOUND.set(b, offset, filterRawOutbound ? 1 : 0);
        F.M_KEY_VIOLATIONS.set(b, offset, mKeyViolations & 0xFFFFFFFFL);
        F.P_KEY_VIOLATIONS.set(b, offset, pKeyViolations & 0xFFFFFFFFL);
        F.Q_KEY_VIOLATIONS.set(b, offset, qKeyViolations & 0xFFFFFFFFL);
        F.GUID_CAP.set(b, offset, guidCap & 0xFFFFFFFFL);
        F.CLIENT_REREGISTER.set(b, offset, clientReregister ? 1 : 0);
        F.MULTICAST_PKEY_TRAP_SUPPRESSION_ENABLED.set(b, offset, multicastPKeyTrapSuppressionEnabled & 0xFFFFFFFFL);
        F.SUBNET_TIMEOUT.set(b, offset, subnetTimeout & 0xFFFFFFFFL);
        F.RESP_TIME_VALUE.set(b, offset, respTimeValue & 0xFFFFFFFFL);
        F.LOCAL_PHY_ERRORS.set(b, offset, localPhyErrors & 0xFFFFFFFFL);
        F.OVERRUN_ERRORS.set(b, offset, overrunErrors & 0xFFFFFFFFL);
        F.MAX_CREDIT_HINT.set(b, offset, maxCreditHint & 0xFFFFFFFFL);
        F.LINK_ROUND_TRIP_LATENCY.set(b, offset, linkRoundTripLatency & 0xFFFFFFFFL);
        F.CAPABILITY_MASK2.set(b, offset, capabilityMask2 & 0xFFFFFFFFL);
        F.LINK_SPEED_EXT_ACTIVE.set(b, offset, linkSpeedExtActive & 0xFFFFFFFFL);
        F.LINK_SPEED_EXT_SUPPORTED.set(b, offset, linkSpeedExtSupported & 0xFFFFFFFFL);
        F.LINK_SPEED_EXT_ENABLED.set(b, offset, linkSpeedExtEnabled & 0xFFFFFFFFL);
    }
}
