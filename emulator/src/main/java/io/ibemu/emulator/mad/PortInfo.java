package io.ibemu.emulator.mad;

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

    public static PortInfo decode(byte[] b, int offset) {
        return CODEC.decode(b, offset);
    }

    public void encode(byte[] b, int offset) {
        CODEC.encode(this, b, offset);
    }
}
