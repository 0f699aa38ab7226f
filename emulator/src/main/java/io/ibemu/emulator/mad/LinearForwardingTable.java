package io.ibemu.emulator.mad;

import java.util.List;

/**
 * LinearForwardingTable (IBA 14.2.5.10): the output port of 64 consecutive LIDs; the attribute modifier is
 * the block (LID / 64).
 */
public record LinearForwardingTable(List<Integer> ports) {
    public static final int PER_BLOCK = 64;
    /** The entry of a LID the switch has no route for. */
    public static final int NO_PORT = 0xFF;
    public static final Layout LAYOUT = Layout.of("LinearForwardingTable", 64,
            Field.array("ports", "LinearForwTbl", 0, 8, PER_BLOCK, 8));
    public static final RecordCodec<LinearForwardingTable> CODEC = RecordCodec.of(LinearForwardingTable.class, LAYOUT);

    public static LinearForwardingTable decode(byte[] b, int offset) {
        return CODEC.decode(b, offset);
    }

    public void encode(byte[] b, int offset) {
        CODEC.encode(this, b, offset);
    }
}
