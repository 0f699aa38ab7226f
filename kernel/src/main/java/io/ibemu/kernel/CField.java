package io.ibemu.kernel;

import java.nio.ByteBuffer;

/**
 * One member of a C struct crossing the user/kernel boundary: where it sits, how wide it is and
 * whether it is stored big-endian (a {@code __be} type) or in the host's order (x86_64: little).
 * Struct layouts are tables of these, declared once beside the record they decode into.
 */
public record CField(String name, int offset, int size, boolean bigEndian) {

    public static CField host(String name, int offset, int size) {
        return new CField(name, offset, size, false);
    }

    public static CField be(String name, int offset, int size) {
        return new CField(name, offset, size, true);
    }

    public static CField bytes(String name, int offset, int size) {
        return new CField(name, offset, size, true);
    }

    public long get(byte[] b, int base) {
        long v = 0;
        for (int i = 0; i < size; i++) {
            int idx = bigEndian ? i : size - 1 - i;
            v = (v << 8) | (b[base + offset + idx] & 0xffL);
        }
        return v;
    }

    public int getInt(byte[] b) {
        return (int) get(b, 0);
    }

    public void put(byte[] b, int base, long value) {
        for (int i = 0; i < size; i++) {
            int idx = bigEndian ? size - 1 - i : i;
            b[base + offset + idx] = (byte) (value >>> (8 * i));
        }
    }

    public void put(byte[] b, long value) {
        put(b, 0, value);
    }

    public byte[] slice(byte[] b) {
        byte[] out = new byte[size];
        System.arraycopy(b, offset, out, 0, size);
        return out;
    }

    public void putBytes(byte[] b, byte[] value) {
        System.arraycopy(value, 0, b, offset, Math.min(size, value.length));
    }

    /**
     * The member of the struct at {@code at} in {@code b}, a buffer in the host's order (FUSE's
     * request buffers): one absolute read of the member's width.
     */
    public long get(ByteBuffer b, int at) {
        int i = at + offset;
        long v = switch (size) {
            case 1 -> b.get(i) & 0xffL;
            case 2 -> b.getShort(i) & 0xffffL;
            case 4 -> b.getInt(i) & 0xffffffffL;
            case 8 -> b.getLong(i);
            default -> throw new IllegalArgumentException(name + ": no scalar of " + size + " bytes");
        };
        return bigEndian ? Long.reverseBytes(v) >>> (64 - 8 * size) : v;
    }

    public int getInt(ByteBuffer b, int at) {
        return (int) get(b, at);
    }

    /** Writes the member of the struct at {@code at} in {@code b} (host order), one absolute put. */
    public void put(ByteBuffer b, int at, long value) {
        int i = at + offset;
        long v = bigEndian ? Long.reverseBytes(value) >>> (64 - 8 * size) : value;
        switch (size) {
            case 1 -> b.put(i, (byte) v);
            case 2 -> b.putShort(i, (short) v);
            case 4 -> b.putInt(i, (int) v);
            case 8 -> b.putLong(i, v);
            default -> throw new IllegalArgumentException(name + ": no scalar of " + size + " bytes");
        }
    }

    public int end() {
        return offset + size;
    }
}
