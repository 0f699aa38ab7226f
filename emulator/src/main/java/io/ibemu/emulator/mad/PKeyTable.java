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

    /** Plain code for the sweep: block {@code block} of a port's table, entries past its end 0. */
    public static void encodeBlock(int[] table, int block, byte[] b, int offset) {
        for (int i = 0; i < PER_BLOCK; i++) {
            int index = block * PER_BLOCK + i;
            Bits.set(b, offset, i * 16, 16, index < table.length ? table[index] : 0);
        }
    }

    /** Entry {@code i} of the block at {@code offset}. */
    public static int entry(byte[] b, int offset, int i) {
        return (int) Bits.get(b, offset, i * 16, 16);
    }
}
