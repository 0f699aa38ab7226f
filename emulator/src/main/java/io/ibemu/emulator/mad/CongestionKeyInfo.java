package io.ibemu.emulator.mad;

/**
 * CongestionKeyInfo (IBA annex A10.4.3.4, ib_cong_key_info_t): the CC_Key guarding Sets, as M_Key
 * guards SubnSet.
 */
public record CongestionKeyInfo(long ccKey, boolean ccKeyProtectBit, int ccKeyLeasePeriod, int ccKeyViolations) {
    public static final Layout LAYOUT = Layout.of("CongestionKeyInfo", 16,
            Field.of("ccKey", "CC_Key", 0, 64),
            Field.of("ccKeyProtectBit", "CC_KeyProtectBit", 64, 1),
            Field.of("ccKeyLeasePeriod", "CC_KeyLeasePeriod", 80, 16),
            Field.of("ccKeyViolations", "CC_KeyViolations", 96, 16));
    public static final RecordCodec<CongestionKeyInfo> CODEC = RecordCodec.of(CongestionKeyInfo.class, LAYOUT);

    public static CongestionKeyInfo decode(byte[] b, int offset) {
        return CODEC.decode(b, offset);
    }

    public void encode(byte[] b, int offset) {
        CODEC.encode(this, b, offset);
    }
}
