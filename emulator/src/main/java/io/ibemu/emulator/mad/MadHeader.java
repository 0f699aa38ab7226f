package io.ibemu.emulator.mad;

/** The common MAD header, bytes 0..23 of every MAD (IBA 13.4.3, ib_types.h ib_mad_t). */
public record MadHeader(int baseVersion, int mgmtClass, int classVersion, int method, int status,
                        int classSpecific, long transactionId, int attributeId, int attributeModifier) {
    public static final Layout LAYOUT = Layout.of("MadHeader", 24,
            Field.of("baseVersion", "MadBaseVersion", 0, 8),
            Field.of("mgmtClass", "MadMgmtClass", 8, 8),
            Field.of("classVersion", "MadClassVersion", 16, 8),
            Field.of("method", "MadMethod", 24, 8),
            Field.of("status", "MadStatus", 32, 16),
            Field.of("classSpecific", "MadClassSpecific", 48, 16),
            Field.of("transactionId", "MadTRID", 64, 64),
            Field.of("attributeId", "MadAttr", 128, 16),
            Field.of("attributeModifier", "MadModifier", 160, 32));
    public static final RecordCodec<MadHeader> CODEC = RecordCodec.of(MadHeader.class, LAYOUT);

    public static MadHeader decode(byte[] mad) {
        return CODEC.decode(mad, 0);
    }

    public void encode(byte[] mad) {
        CODEC.encode(this, mad, 0);
    }
}
