package io.ibemu.emulator.mad;

/**
 * One row of an attribute table: the record component it fills ({@code name}), the name
 * infiniband-diags prints for it ({@code label}, as libibmad's fields.c spells it), and where it
 * lies. An array field repeats {@code count} times every {@code strideBits}.
 */
public record Field(String name, String label, int bitOffset, int bitWidth, int count, int strideBits) {
    public Field {
        if (bitWidth < 1 || (bitWidth > 64 && count != 1) || count < 1 || (count > 1 && strideBits < bitWidth)) {
            throw new IllegalArgumentException("bad field " + name);
        }
    }

    public static Field of(String name, String label, int bitOffset, int bitWidth) {
        return new Field(name, label, bitOffset, bitWidth, 1, bitWidth);
    }

    public static Field array(String name, String label, int bitOffset, int bitWidth, int count, int strideBits) {
        return new Field(name, label, bitOffset, bitWidth, count, strideBits);
    }

    /** A byte string (NodeDescription's 64 bytes): wider than a number, read as bytes. */
    public static Field text(String name, String label, int bitOffset, int bitWidth) {
        if ((bitOffset & 7) != 0 || (bitWidth & 7) != 0) {
            throw new IllegalArgumentException("text field " + name + " must be byte aligned");
        }
        return new Field(name, label, bitOffset, bitWidth, 1, bitWidth);
    }

    public boolean isArray() {
        return count > 1;
    }

    /** One past the last bit this field (all its elements) covers. */
    public int endBit() {
        return bitOffset + (count - 1) * strideBits + bitWidth;
    }

    public long get(byte[] b, int base) {
        return Bits.get(b, base, bitOffset, bitWidth);
    }

    public long get(byte[] b, int base, int index) {
        return Bits.get(b, base, bitOffset + index * strideBits, bitWidth);
    }

    public void set(byte[] b, int base, long value) {
        Bits.set(b, base, bitOffset, bitWidth, value);
    }

    public void set(byte[] b, int base, int index, long value) {
        Bits.set(b, base, bitOffset + index * strideBits, bitWidth, value);
    }
}
