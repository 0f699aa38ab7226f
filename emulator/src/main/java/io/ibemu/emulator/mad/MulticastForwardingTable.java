package io.ibemu.emulator.mad;

import java.util.List;

/**
 * MulticastForwardingTable (IBA 14.2.5.12): 32 port masks of 16 bits; attribute modifier bits 31..28 the
 * port position (ports 16*p..16*p+15), bits 8..0 the block (32 MLIDs from 0xC000).
 */
public record MulticastForwardingTable(List<Integer> portMasks) {
    public static final int PER_BLOCK = 32;
    public static final int PORTS_PER_POSITION = 16;
    public static final Layout LAYOUT = Layout.of("MulticastForwardingTable", 64,
            Field.array("portMasks", "MulticastForwTbl", 0, 16, PER_BLOCK, 16));
    public static final RecordCodec<MulticastForwardingTable> CODEC =
            RecordCodec.of(MulticastForwardingTable.class, LAYOUT);

    public static MulticastForwardingTable decode(byte[] b, int offset) {
        return CODEC.decode(b, offset);
    }

    public void encode(byte[] b, int offset) {
        CODEC.encode(this, b, offset);
    }
}
