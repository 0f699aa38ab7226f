package io.ibemu.emulator.mad;

import java.util.List;

/**
 * CongestionControlTable (IBA annex A10.4.3.9, ib_cc_tbl_t): CCTI_Limit, then one block of 64
 * shift:multiplier entries; the attribute modifier picks the block.
 */
public record CongestionControlTable(int cctiLimit, List<Integer> cctShift, List<Integer> cctMultiplier) {
    public static final int PER_BLOCK = 64;
    public static final Layout LAYOUT = Layout.of("CongestionControlTable", 132,
            Field.of("cctiLimit", "CCTI_Limit", 0, 16),
            Field.array("cctShift", "CCT_Shift", 32, 2, PER_BLOCK, 16),
            Field.array("cctMultiplier", "CCT_Multiplier", 34, 14, PER_BLOCK, 16));
    public static final RecordCodec<CongestionControlTable> CODEC =
            RecordCodec.of(CongestionControlTable.class, LAYOUT);

    public static CongestionControlTable decode(byte[] b, int offset) {
        return CODEC.decode(b, offset);
    }

    public void encode(byte[] b, int offset) {
        CODEC.encode(this, b, offset);
    }
}
