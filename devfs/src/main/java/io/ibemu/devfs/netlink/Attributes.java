package io.ibemu.devfs.netlink;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * The attributes of a message as nlmsg_parse_deprecated leaves them in {@code tb[]}: the last of
 * each type wins, types above the policy's maximum and malformed trailing bytes are ignored
 * (NL_VALIDATE_LIBERAL), and each attribute the policy knows is validated as validate_nla does.
 */
public final class Attributes {

    /** The policy check failed: errno and the attribute's offset from the message start, as extack reports. */
    public static final class Invalid extends Exception {
        public final int errno;
        public final int offset;

        Invalid(int errno, int offset) {
            super("Attribute failed policy validation", null, false, false);
            this.errno = errno;
            this.offset = offset;
        }
    }

    private static final int EINVAL = 22;
    private static final int ERANGE = 34;
    /** NLA_TYPE_MASK: the type without NLA_F_NESTED and NLA_F_NET_BYTEORDER. */
    private static final int TYPE_MASK = 0x3fff;

    private record Entry(int offset, byte[] data) {
    }

    private final Map<Integer, Entry> entries = new HashMap<>();

    private Attributes() {
    }

    /**
     * Parses the attributes after {@code headerLength} bytes of family header in {@code message}
     * against {@code policy} (indexed by type; null entries have no policy), of at most {@code maxType}.
     */
    public static Attributes parse(NetlinkMessage message, int headerLength, AttributePolicy[] policy, int maxType)
            throws Invalid {
        byte[] m = message.bytes();
        if (m.length - NetlinkMessage.HEADER < headerLength) {
            throw new Invalid(EINVAL, -1);
        }
        return parse(m, NetlinkMessage.HEADER + NetlinkMessage.align(headerLength), m.length, policy, maxType);
    }

    /** The attributes of a nest's payload, offsets still counted from the message start. */
    public static Attributes parse(byte[] m, int from, int to, AttributePolicy[] policy, int maxType) throws Invalid {
        Attributes a = new Attributes();
        ByteBuffer b = ByteBuffer.wrap(m).order(ByteOrder.nativeOrder());
        int at = from;
        while (to - at >= 4) { // nla_ok
            int len = b.getShort(at) & 0xffff;
            if (len < 4 || len > to - at) {
                break; // leftover bytes: a warning in the kernel's log only
            }
            int type = b.getShort(at + 2) & TYPE_MASK;
            byte[] data = new byte[len - 4];
            System.arraycopy(m, at + 4, data, 0, data.length);
            if (type <= maxType) {
                AttributePolicy p = type < policy.length ? policy[type] : null;
                if (p != null) {
                    validate(p, data, at);
                }
                a.entries.put(type, new Entry(at, data));
            }
            at += NetlinkMessage.align(len);
        }
        return a;
    }

    /** validate_nla under NL_VALIDATE_LIBERAL. */
    private static void validate(AttributePolicy p, byte[] data, int offset) throws Invalid {
        int length = data.length;
        switch (p.kind()) {
            case NUL_STRING -> {
                int scan = p.maxLength() > 0 ? Math.min(length, p.maxLength() + 1) : length;
                boolean nul = false;
                for (int i = 0; i < scan && !nul; i++) {
                    nul = data[i] == 0;
                }
                if (scan == 0 || !nul) {
                    throw new Invalid(EINVAL, offset);
                }
                int text = data[length - 1] == 0 ? length - 1 : length;
                if (p.maxLength() > 0 && text > p.maxLength()) {
                    throw new Invalid(ERANGE, offset);
                }
            }
            case NESTED -> {
                if (length != 0 && length < 4) {
                    throw new Invalid(ERANGE, offset);
                }
            }
            case BINARY -> {
                if (p.maxLength() > 0 && length > p.maxLength()) {
                    throw new Invalid(ERANGE, offset);
                }
            }
            default -> {
                int min = p.maxLength() > 0 ? p.maxLength() : p.kind().size;
                if (length < min) {
                    throw new Invalid(ERANGE, offset);
                }
            }
        }
    }

    public boolean has(int type) {
        return entries.containsKey(type);
    }

    public int offset(int type) {
        Entry e = entries.get(type);
        return e == null ? -1 : e.offset();
    }

    public byte[] bytes(int type) {
        Entry e = entries.get(type);
        return e == null ? null : e.data();
    }

    public int u8(int type) {
        return bytes(type)[0] & 0xff;
    }

    public long u32(int type) {
        return ByteBuffer.wrap(bytes(type)).order(ByteOrder.nativeOrder()).getInt() & 0xffffffffL;
    }

    public long u64(int type) {
        return ByteBuffer.wrap(bytes(type)).order(ByteOrder.nativeOrder()).getLong();
    }

    /** nla_strscpy into a buffer of {@code size}: up to the first NUL, at most size-1 bytes. */
    public String string(int type, int size) {
        byte[] d = bytes(type);
        int n = 0;
        while (n < d.length && d[n] != 0 && n < size - 1) {
            n++;
        }
        return new String(d, 0, n, StandardCharsets.UTF_8);
    }
}
