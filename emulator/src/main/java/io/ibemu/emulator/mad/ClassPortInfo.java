package io.ibemu.emulator.mad;

/**
 * ClassPortInfo (IBA 13.4.8.1, ib_types.h ib_class_port_info_t): 72 bytes; GIDs as prefix and interface
 * id.
 */
public record ClassPortInfo(int baseVersion, int classVersion, int capabilityMask, int capabilityMask2,
                            int respTimeValue,
                            long redirectGidPrefix, long redirectGidInterfaceId, int redirectTc, int redirectSl,
                            int redirectFl, int redirectLid, int redirectPKey, int redirectQp, int redirectQKey,
                            long trapGidPrefix, long trapGidInterfaceId, int trapTc, int trapSl, int trapFl,
                            int trapLid, int trapPKey, int trapHopLimit, int trapQp, int trapQKey) {
    /** Its attribute ID, the same in every class (IBA 13.4.8.1). */
    public static final int ATTRIBUTE_ID = 0x0001;
    public static final Layout LAYOUT = Layout.of("ClassPortInfo", 72,
            Field.of("baseVersion", "BaseVersion", 0, 8),
            Field.of("classVersion", "ClassVersion", 8, 8),
            Field.of("capabilityMask", "CapabilityMask", 16, 16),
            Field.of("capabilityMask2", "CapabilityMask2", 32, 27),
            Field.of("respTimeValue", "RespTimeVal", 59, 5),
            Field.of("redirectGidPrefix", "RedirectGIDPrefix", 64, 64),
            Field.of("redirectGidInterfaceId", "RedirectGIDGuid", 128, 64),
            Field.of("redirectTc", "RedirectTC", 192, 8),
            Field.of("redirectSl", "RedirectSL", 200, 4),
            Field.of("redirectFl", "RedirectFL", 204, 20),
            Field.of("redirectLid", "RedirectLID", 224, 16),
            Field.of("redirectPKey", "RedirectPKey", 240, 16),
            Field.of("redirectQp", "RedirectQP", 264, 24),
            Field.of("redirectQKey", "RedirectQKey", 288, 32),
            Field.of("trapGidPrefix", "TrapGIDPrefix", 320, 64),
            Field.of("trapGidInterfaceId", "TrapGIDGuid", 384, 64),
            Field.of("trapTc", "TrapTC", 448, 8),
            Field.of("trapSl", "TrapSL", 456, 4),
            Field.of("trapFl", "TrapFL", 460, 20),
            Field.of("trapLid", "TrapLID", 480, 16),
            Field.of("trapPKey", "TrapPKey", 496, 16),
            Field.of("trapHopLimit", "TrapHL", 512, 8),
            Field.of("trapQp", "TrapQP", 520, 24),
            Field.of("trapQKey", "TrapQKey", 544, 32));
    public static final RecordCodec<ClassPortInfo> CODEC = RecordCodec.of(ClassPortInfo.class, LAYOUT);

    public static ClassPortInfo decode(byte[] b, int offset) {
        return CODEC.decode(b, offset);
    }

    public void encode(byte[] b, int offset) {
        CODEC.encode(this, b, offset);
    }
}
