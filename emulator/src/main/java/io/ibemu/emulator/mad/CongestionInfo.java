package io.ibemu.emulator.mad;

/**
 * CongestionInfo (IBA annex A10.4.3.3, ib_types.h ib_cong_info_t): what the CCA supports and, on a
 * CA, how many 64-entry CongestionControlTable blocks it holds.
 */
public record CongestionInfo(int congestionInfo, int controlTableCap) {
    public static final Layout LAYOUT = Layout.of("CongestionInfo", 4,
            Field.of("congestionInfo", "CongestionInfo", 0, 16),
            Field.of("controlTableCap", "ControlTableCap", 16, 8));
    public static final RecordCodec<CongestionInfo> CODEC = RecordCodec.of(CongestionInfo.class, LAYOUT);

    public static CongestionInfo decode(byte[] b, int offset) {
        return CODEC.decode(b, offset);
    }

    public void encode(byte[] b, int offset) {
        CODEC.encode(this, b, offset);
    }
}
