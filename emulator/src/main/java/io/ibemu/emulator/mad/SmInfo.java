package io.ibemu.emulator.mad;

/** SMInfo (IBA 14.2.5.13, ib_types.h ib_sm_info_t): 21 bytes. */
public record SmInfo(long guid, long smKey, long actCount, int priority, int smState) {
    public static final Layout LAYOUT = Layout.of("SmInfo", 21,
            Field.of("guid", "SmInfoGuid", 0, 64),
            Field.of("smKey", "SmInfoKey", 64, 64),
            Field.of("actCount", "SmActivity", 128, 32),
            Field.of("priority", "SmPriority", 160, 4),
            Field.of("smState", "SmState", 164, 4));
    public static final RecordCodec<SmInfo> CODEC = RecordCodec.of(SmInfo.class, LAYOUT);

    public static SmInfo decode(byte[] b, int offset) {
        return CODEC.decode(b, offset);
    }

    public void encode(byte[] b, int offset) {
        CODEC.encode(this, b, offset);
    }
}
