package io.ibemu.emulator.mad;

/**
 * Big-endian bit fields as the IBA tables number them: bit 0 is the most significant bit of the
 * first byte, so a field is (bit offset, bit width) exactly as the spec's attribute tables and
 * the first argument of libibmad's BITSOFFS give it.
 */
public final class Bits {
    private Bits() {
    }

    /** The unsigned value of {@code width} (1..64) bits at {@code bitOffset} from {@code base}. */
    public static long get(byte[] b, int base, int bitOffset, int width) {
        check(width);
        if ((bitOffset & 7) == 0 && (width & 7) == 0) {
            long v = 0;
            int from = base + (bitOffset >>> 3);
            for (int i = 0; i < width >>> 3; i++) {
                v = (v << 8) | (b[from + i] & 0xFF);
            }
            return v;
        }
        int first = bitOffset >>> 3;
        int last = (bitOffset + width - 1) >>> 3;
        if (last - first >= 8) {
            throw new IllegalArgumentException("unaligned field wider than 57 bits");
        }
        long v = 0;
        for (int i = first; i <= last; i++) {
            v = (v << 8) | (b[base + i] & 0xFF);
        }
        int trailing = (last + 1) * 8 - (bitOffset + width);
        return (v >>> trailing) & mask(width);
    }

    /** Writes the low {@code width} bits of {@code value}, leaving the neighbouring bits alone. */
    public static void set(byte[] b, int base, int bitOffset, int width, long value) {
        check(width);
        if ((bitOffset & 7) == 0 && (width & 7) == 0) {
            int from = base + (bitOffset >>> 3);
            int n = width >>> 3;
            for (int i = n - 1; i >= 0; i--) {
                b[from + i] = (byte) value;
                value >>>= 8;
            }
            return;
        }
        int first = bitOffset >>> 3;
        int last = (bitOffset + width - 1) >>> 3;
        if (last - first >= 8) {
            throw new IllegalArgumentException("unaligned field wider than 57 bits");
        }
        long span = 0;
        for (int i = first; i <= last; i++) {
            span = (span << 8) | (b[base + i] & 0xFF);
        }
        int trailing = (last + 1) * 8 - (bitOffset + width);
        long m = mask(width) << trailing;
        span = (span & ~m) | ((value << trailing) & m);
        for (int i = last; i >= first; i--) {
            b[base + i] = (byte) span;
            span >>>= 8;
        }
    }

    /** The low {@code width} bits set. */
    public static long mask(int width) {
        return width == 64 ? -1L : (1L << width) - 1;
    }

    private static void check(int width) {
        if (width < 1 || width > 64) {
            throw new IllegalArgumentException("bit width " + width);
        }
    }
}
