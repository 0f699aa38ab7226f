package io.ibemu.devfs.netlink;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;

/**
 * Builds one netlink message as the kernel's nlmsg_put / nla_put_* do: a header, then attributes
 * (struct nlattr {u16 len; u16 type}, each padded to 4 bytes), nests closed by {@link #end}.
 * 64-bit values are put as nla_put_u64_64bit does on x86_64 (no pad attribute: 8-byte alignment
 * is not needed there).
 */
public final class MessageWriter {

    /** NLA_F_NESTED: set on nests, as nla_nest_start does since 5.2. */
    public static final int NLA_F_NESTED = 0x8000;
    private static final int NLA_HDRLEN = 4;

    private final ByteBuffer out;
    private final Deque<Integer> nests = new ArrayDeque<>();

    /** A message of {@code type}, {@code flags} and {@code seq} to port {@code portId}, at most {@code capacity} bytes. */
    public MessageWriter(int type, int flags, int seq, int portId, int capacity) {
        out = ByteBuffer.allocate(capacity).order(ByteOrder.nativeOrder());
        out.putInt(0).putShort((short) type).putShort((short) flags).putInt(seq).putInt(portId);
    }

    public MessageWriter(int type, int flags, int seq, int portId) {
        this(type, flags, seq, portId, 1 << 16);
    }

    /** Bytes written so far. */
    public int size() {
        return out.position();
    }

    public MessageWriter u8(int type, int value) {
        return attribute(type, new byte[] {(byte) value});
    }

    public MessageWriter u32(int type, long value) {
        return attribute(type, ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt((int) value).array());
    }

    public MessageWriter u64(int type, long value) {
        return attribute(type, ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(value).array());
    }

    /** nla_put_string: the bytes and a NUL. */
    public MessageWriter string(int type, String value) {
        byte[] s = value.getBytes(StandardCharsets.UTF_8);
        return attribute(type, Arrays.copyOf(s, s.length + 1));
    }

    public MessageWriter attribute(int type, byte[] data) {
        out.putShort((short) (NLA_HDRLEN + data.length)).putShort((short) type).put(data);
        pad();
        return this;
    }

    /** Raw bytes (a payload struct such as nlmsgerr), padded. */
    public MessageWriter raw(byte[] data) {
        out.put(data);
        pad();
        return this;
    }

    /** nla_nest_start. */
    public MessageWriter nest(int type) {
        nests.push(out.position());
        out.putShort((short) 0).putShort((short) (type | NLA_F_NESTED));
        return this;
    }

    /** nla_nest_end of the innermost open nest. */
    public MessageWriter end() {
        int start = nests.pop();
        out.putShort(start, (short) (out.position() - start));
        return this;
    }

    /** The message, its length set (nlmsg_end). */
    public byte[] build() {
        if (!nests.isEmpty()) {
            throw new IllegalStateException("a nest is still open");
        }
        out.putInt(0, out.position());
        return Arrays.copyOf(out.array(), out.position());
    }

    private void pad() {
        while ((out.position() & 3) != 0) {
            out.put((byte) 0);
        }
    }

    /** Joins messages into one datagram. */
    public static byte[] join(Iterable<byte[]> messages) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (byte[] m : messages) {
            b.writeBytes(m);
        }
        return b.toByteArray();
    }
}
