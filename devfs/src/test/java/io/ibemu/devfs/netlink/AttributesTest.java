package io.ibemu.devfs.netlink;

import io.ibemu.devfs.netlink.AttributePolicy.Kind;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** validate_nla under NL_VALIDATE_LIBERAL, and how dump messages are packed into datagrams. */
class AttributesTest {
    private static final AttributePolicy[] POLICY = {
        null,
        new AttributePolicy(1, Kind.U32, 0),
        new AttributePolicy(2, Kind.NUL_STRING, 7),
        new AttributePolicy(3, Kind.NESTED, 0),
        new AttributePolicy(4, Kind.UNSPEC, 8),
    };

    private static NetlinkMessage message(MessageWriter w) {
        byte[] b = w.build();
        return NetlinkMessage.at(b, 0, b.length);
    }

    private static MessageWriter writer() {
        return new MessageWriter(0x1401, NetlinkMessage.NLM_F_REQUEST, 1, 0);
    }

    @Test
    void lastOfATypeWinsAndUnknownTypesAreIgnored() throws Exception {
        Attributes a = Attributes.parse(message(writer().u32(1, 5).u32(1, 6).u32(9, 1).u8(200, 1)), 0, POLICY, 10);
        assertEquals(6, a.u32(1));
        assertTrue(a.has(9)); // within the maximum but without a policy: kept unchecked
        assertFalse(a.has(200));
    }

    @Test
    void aShortFixedSizeAttributeIsErange() {
        Attributes.Invalid e = assertThrows(Attributes.Invalid.class,
                () -> Attributes.parse(message(writer().string(2, "a").attribute(1, new byte[3])), 0, POLICY, 8));
        assertEquals(34, e.errno);
        assertEquals(NetlinkMessage.HEADER + 8, e.offset);
    }

    @Test
    void stringsNeedTheirNulWithinTheLimit() throws Exception {
        assertEquals("abc", Attributes.parse(message(writer().string(2, "abc")), 0, POLICY, 8).string(2, 64));
        assertEquals(22, assertThrows(Attributes.Invalid.class, () -> Attributes.parse(
                message(writer().attribute(2, "abc".getBytes())), 0, POLICY, 8)).errno);
        assertEquals(22, assertThrows(Attributes.Invalid.class, () -> Attributes.parse(
                message(writer().string(2, "abcdefghij")), 0, POLICY, 8)).errno);
        assertEquals(34, assertThrows(Attributes.Invalid.class, () -> Attributes.parse(
                message(writer().attribute(2, "ab\0cdefg\0".getBytes())), 0, POLICY, 8)).errno);
    }

    @Test
    void aLengthMinimumAppliesToUntypedAttributes() {
        assertEquals(34, assertThrows(Attributes.Invalid.class, () -> Attributes.parse(
                message(writer().attribute(4, new byte[4])), 0, POLICY, 8)).errno);
    }

    @Test
    void aMalformedTailIsIgnored() throws Exception {
        byte[] b = writer().u32(1, 7).raw(new byte[] {2, 0, 1, 0}).build();
        Attributes a = Attributes.parse(NetlinkMessage.at(b, 0, b.length), 0, POLICY, 8);
        assertEquals(7, a.u32(1));
    }

    @Test
    void dumpsArePackedWholeMessagesUpToTheLimit() {
        byte[] m = new byte[1000];
        List<byte[]> d = NetlinkInput.pack(List.of(m, m, m, m, m), 3776);
        assertEquals(2, d.size());
        assertEquals(3000, d.get(0).length);
        assertEquals(2000, d.get(1).length);
    }
}
