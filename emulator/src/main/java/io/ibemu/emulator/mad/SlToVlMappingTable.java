package io.ibemu.emulator.mad;

import java.util.List;

/** SLtoVLMappingTable (IBA 14.2.5.8): the VL of each of the 16 SLs, a nibble each, SL0 first. */
public record SlToVlMappingTable(List<Integer> vls) {
    public static final Layout LAYOUT = Layout.of("SlToVlMappingTable", 8,
            Field.array("vls", "SLToVLMap", 0, 4, 16, 4));
    public static final RecordCodec<SlToVlMappingTable> CODEC = RecordCodec.of(SlToVlMappingTable.class, LAYOUT);

    public static SlToVlMappingTable decode(byte[] b, int offset) {
        return CODEC.decode(b, offset);
    }

    public void encode(byte[] b, int offset) {
        CODEC.encode(this, b, offset);
    }
}
