package io.ibemu.emulator.mad;

import java.util.List;

/**
 * VLArbitrationTable (IBA 14.2.5.9): 32 (VL, weight) entries of 16 bits (4 reserved, VL, weight);
 * attribute modifier bits 31..16 pick the block (1,2 low priority, 3,4 high).
 */
public record VlArbitrationTable(List<Integer> vls, List<Integer> weights) {
    public static final int ENTRIES = 32;
    public static final int LOW_PRIORITY_0_31 = 1;
    public static final int LOW_PRIORITY_32_63 = 2;
    public static final int HIGH_PRIORITY_0_31 = 3;
    public static final int HIGH_PRIORITY_32_63 = 4;
    public static final Layout LAYOUT = Layout.of("VlArbitrationTable", 64,
            Field.array("vls", "VL", 4, 4, ENTRIES, 16),
            Field.array("weights", "Weight", 8, 8, ENTRIES, 16));
    public static final RecordCodec<VlArbitrationTable> CODEC = RecordCodec.of(VlArbitrationTable.class, LAYOUT);

    public static VlArbitrationTable decode(byte[] b, int offset) {
        return CODEC.decode(b, offset);
    }

    public void encode(byte[] b, int offset) {
        CODEC.encode(this, b, offset);
    }
}
