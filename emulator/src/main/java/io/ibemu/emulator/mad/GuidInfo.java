package io.ibemu.emulator.mad;

import java.util.List;

/** GUIDInfo (IBA 14.2.5.5): one block of 8 GUIDs; the attribute modifier is the block number. */
public record GuidInfo(List<Long> guids) {
    public static final int PER_BLOCK = 8;
    public static final Layout LAYOUT = Layout.of("GuidInfo", 64,
            Field.array("guids", "GUID", 0, 64, PER_BLOCK, 64));
    public static final RecordCodec<GuidInfo> CODEC = RecordCodec.of(GuidInfo.class, LAYOUT);

    public static GuidInfo decode(byte[] b, int offset) {
        return CODEC.decode(b, offset);
    }

    public void encode(byte[] b, int offset) {
        CODEC.encode(this, b, offset);
    }
}
