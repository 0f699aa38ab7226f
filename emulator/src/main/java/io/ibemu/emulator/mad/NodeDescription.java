package io.ibemu.emulator.mad;

/** NodeDescription (IBA 14.2.5.2): 64 bytes of text, NUL padded, not necessarily NUL terminated. */
public record NodeDescription(String description) {
    public static final int MAX_BYTES = 64;
    public static final Layout LAYOUT = Layout.of("NodeDescription", 64,
            Field.text("description", "NodeDesc", 0, 512));
    public static final RecordCodec<NodeDescription> CODEC = RecordCodec.of(NodeDescription.class, LAYOUT);

    public static NodeDescription decode(byte[] b, int offset) {
        return CODEC.decode(b, offset);
    }

    public void encode(byte[] b, int offset) {
        CODEC.encode(this, b, offset);
    }

    /** The 64 bytes from raw bytes (no character set): NUL padded, the rest cut. */
    public static void encode(byte[] description, byte[] b, int offset) {
        int n = Math.min(description.length, MAX_BYTES);
        System.arraycopy(description, 0, b, offset, n);
        java.util.Arrays.fill(b, offset + n, offset + MAX_BYTES, (byte) 0);
    }
}
