package io.ibemu.emulator.mad;

import java.util.Arrays;

/** SwitchInfo (IBA 14.2.5.4, ib_types.h ib_switch_info_t): 20 bytes. */
public record SwitchInfo(int linearFdbCap, int randomFdbCap, int multicastFdbCap, int linearFdbTop, int defaultPort,
                         int defaultMulticastPrimaryPort, int defaultMulticastNotPrimaryPort, int lifeTimeValue,
                         boolean portStateChange, int optimizedSlToVlMappingProgramming, int lidsPerPort,
                         int partitionEnforcementCap, boolean inboundEnforcementCap, boolean outboundEnforcementCap,
                         boolean filterRawInboundCap, boolean filterRawOutboundCap, boolean enhancedPort0,
                         int multicastFdbTop) {
    public static final Layout LAYOUT = Layout.of("SwitchInfo", 20,
            Field.of("linearFdbCap", "LinearFdbCap", 0, 16),
            Field.of("randomFdbCap", "RandomFdbCap", 16, 16),
            Field.of("multicastFdbCap", "McastFdbCap", 32, 16),
            Field.of("linearFdbTop", "LinearFdbTop", 48, 16),
            Field.of("defaultPort", "DefPort", 64, 8),
            Field.of("defaultMulticastPrimaryPort", "DefMcastPrimPort", 72, 8),
            Field.of("defaultMulticastNotPrimaryPort", "DefMcastNotPrimPort", 80, 8),
            Field.of("lifeTimeValue", "LifeTime", 88, 5),
            Field.of("portStateChange", "StateChange", 93, 1),
            Field.of("optimizedSlToVlMappingProgramming", "OptSLtoVLMapping", 94, 2),
            Field.of("lidsPerPort", "LidsPerPort", 96, 16),
            Field.of("partitionEnforcementCap", "PartEnforceCap", 112, 16),
            Field.of("inboundEnforcementCap", "InboundPartEnf", 128, 1),
            Field.of("outboundEnforcementCap", "OutboundPartEnf", 129, 1),
            Field.of("filterRawInboundCap", "FilterRawInbound", 130, 1),
            Field.of("filterRawOutboundCap", "FilterRawOutbound", 131, 1),
            Field.of("enhancedPort0", "EnhancedPort0", 132, 1),
            Field.of("multicastFdbTop", "MulticastFDBTop", 144, 16));
    public static final RecordCodec<SwitchInfo> CODEC = RecordCodec.of(SwitchInfo.class, LAYOUT);

    /**
     * Plain code for what every sweep reads and writes: the fields are still the ones
     * {@link #LAYOUT} declares, looked up once; {@code AttributeCodecTest} checks this against
     * {@link #CODEC}, the reflective codec, which stays for dumps and the other attributes.
     */
    private static final class F {
        static final Field LINEAR_FDB_CAP = LAYOUT.field("linearFdbCap");
        static final Field RANDOM_FDB_CAP = LAYOUT.field("randomFdbCap");
        static final Field MULTICAST_FDB_CAP = LAYOUT.field("multicastFdbCap");
        static final Field LINEAR_FDB_TOP = LAYOUT.field("linearFdbTop");
        static final Field DEFAULT_PORT = LAYOUT.field("defaultPort");
        static final Field DEFAULT_MULTICAST_PRIMARY_PORT = LAYOUT.field("defaultMulticastPrimaryPort");
        static final Field DEFAULT_MULTICAST_NOT_PRIMARY_PORT = LAYOUT.field("defaultMulticastNotPrimaryPort");
        static final Field LIFE_TIME_VALUE = LAYOUT.field("lifeTimeValue");
        static final Field PORT_STATE_CHANGE = LAYOUT.field("portStateChange");
        static final Field OPTIMIZED_SL_TO_VL_MAPPING_PROGRAMMING = LAYOUT.field("optimizedSlToVlMappingProgramming");
        static final Field LIDS_PER_PORT = LAYOUT.field("lidsPerPort");
        static final Field PARTITION_ENFORCEMENT_CAP = LAYOUT.field("partitionEnforcementCap");
        static final Field INBOUND_ENFORCEMENT_CAP = LAYOUT.field("inboundEnforcementCap");
        static final Field OUTBOUND_ENFORCEMENT_CAP = LAYOUT.field("outboundEnforcementCap");
        static final Field FILTER_RAW_INBOUND_CAP = LAYOUT.field("filterRawInboundCap");
        static final Field FILTER_RAW_OUTBOUND_CAP = LAYOUT.field("filterRawOutboundCap");
        static final Field ENHANCED_PORT0 = LAYOUT.field("enhancedPort0");
        static final Field MULTICAST_FDB_TOP = LAYOUT.field("multicastFdbTop");
    }

    public static SwitchInfo decode(byte[] b, int offset) {
        return new SwitchInfo(
                (int) F.LINEAR_FDB_CAP.get(b, offset),
                (int) F.RANDOM_FDB_CAP.get(b, offset),
                (int) F.MULTICAST_FDB_CAP.get(b, offset),
                (int) F.LINEAR_FDB_TOP.get(b, offset),
                (int) F.DEFAULT_PORT.get(b, offset),
                (int) F.DEFAULT_MULTICAST_PRIMARY_PORT.get(b, offset),
                (int) F.DEFAULT_MULTICAST_NOT_PRIMARY_PORT.get(b, offset),
                (int) F.LIFE_TIME_VALUE.get(b, offset),
                F.PORT_STATE_CHANGE.get(b, offset) != 0,
                (int) F.OPTIMIZED_SL_TO_VL_MAPPING_PROGRAMMING.get(b, offset),
                (int) F.LIDS_PER_PORT.get(b, offset),
                (int) F.PARTITION_ENFORCEMENT_CAP.get(b, offset),
                F.INBOUND_ENFORCEMENT_CAP.get(b, offset) != 0,
                F.OUTBOUND_ENFORCEMENT_CAP.get(b, offset) != 0,
                F.FILTER_RAW_INBOUND_CAP.get(b, offset) != 0,
                F.FILTER_RAW_OUTBOUND_CAP.get(b, offset) != 0,
                F.ENHANCED_PORT0.get(b, offset) != 0,
                (int) F.MULTICAST_FDB_TOP.get(b, offset));
    }

    /** Writes this at {@code offset}, reserved bits zero. */
    public void encode(byte[] b, int offset) {
        Arrays.fill(b, offset, offset + LAYOUT.sizeBytes(), (byte) 0);
        F.LINEAR_FDB_CAP.set(b, offset, linearFdbCap & 0xFFFFFFFFL);
        F.RANDOM_FDB_CAP.set(b, offset, randomFdbCap & 0xFFFFFFFFL);
        F.MULTICAST_FDB_CAP.set(b, offset, multicastFdbCap & 0xFFFFFFFFL);
        F.LINEAR_FDB_TOP.set(b, offset, linearFdbTop & 0xFFFFFFFFL);
        F.DEFAULT_PORT.set(b, offset, defaultPort & 0xFFFFFFFFL);
        F.DEFAULT_MULTICAST_PRIMARY_PORT.set(b, offset, defaultMulticastPrimaryPort & 0xFFFFFFFFL);
        F.DEFAULT_MULTICAST_NOT_PRIMARY_PORT.set(b, offset, defaultMulticastNotPrimaryPort & 0xFFFFFFFFL);
        F.LIFE_TIME_VALUE.set(b, offset, lifeTimeValue & 0xFFFFFFFFL);
        F.PORT_STATE_CHANGE.set(b, offset, portStateChange ? 1 : 0);
        F.OPTIMIZED_SL_TO_VL_MAPPING_PROGRAMMING.set(b, offset, optimizedSlToVlMappingProgramming & 0xFFFFFFFFL);
        F.LIDS_PER_PORT.set(b, offset, lidsPerPort & 0xFFFFFFFFL);
        F.PARTITION_ENFORCEMENT_CAP.set(b, offset, partitionEnforcementCap & 0xFFFFFFFFL);
        F.INBOUND_ENFORCEMENT_CAP.set(b, offset, inboundEnforcementCap ? 1 : 0);
        F.OUTBOUND_ENFORCEMENT_CAP.set(b, offset, outboundEnforcementCap ? 1 : 0);
        F.FILTER_RAW_INBOUND_CAP.set(b, offset, filterRawInboundCap ? 1 : 0);
        F.FILTER_RAW_OUTBOUND_CAP.set(b, offset, filterRawOutboundCap ? 1 : 0);
        F.ENHANCED_PORT0.set(b, offset, enhancedPort0 ? 1 : 0);
        F.MULTICAST_FDB_TOP.set(b, offset, multicastFdbTop & 0xFFFFFFFFL);
    }
}
