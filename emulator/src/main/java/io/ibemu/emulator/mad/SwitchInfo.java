package io.ibemu.emulator.mad;

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

    public static SwitchInfo decode(byte[] b, int offset) {
        return CODEC.decode(b, offset);
    }

    public void encode(byte[] b, int offset) {
        CODEC.encode(this, b, offset);
    }
}
