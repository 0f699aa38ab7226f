package io.ibemu.emulator.mad;

import java.util.List;

/** P_KeyTable (IBA 14.2.5.7): one block of 32 P_Keys (membership bit 15, key 14..0). */
public record PKeyTable(List<Integer> pKeys) {
    public static final int PER_BLOCK = 32;
    public static final Layout LAYOUT = Layout.of("PKeyTable", 64,
            Field.array("pKeys", "PKey", 0, 16, PER_BLOCK, 16));
    public static final RecordCodec<PKeyTable> CODEC = RecordCodec.of(PKeyTable.class, LAYOUT);

    public static PKeyTable decode(byte[] b, int offset) {
        return CODEC.decode(b, offset);
    }

    public void encode(byte[] b, int offset) {
        CODEC.encode(this, b, offset);
    }
}
