package io.ibemu.emulator.mad;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** MCMemberRecord and PathRecord at the byte offsets of ib_types.h's ib_member_rec_t and ib_path_rec_t. */
class SaRecordsTest {

    @Test
    void mcMemberRecordFieldsSitWhereOpenSmReadsThem() {
        McMemberRecord r = new McMemberRecord(0xff12401bffff0000L, 0xffffffffL, 0xfe80000000000000L,
                0x0011750000000101L, 0x0b1b, 0xc001, 2, 4, 0x11, 0xffff, 2, 3, 2, 0x12, 5, 0xabcde, 0x7f, 2,
                McMemberRecord.FULL_MEMBER, true);
        byte[] b = new byte[McMemberRecord.LAYOUT.sizeBytes()];
        r.encode(b, 0);
        assertEquals((byte) 0xff, b[0]);
        assertEquals((byte) 0x1b, b[3]);
        assertEquals((byte) 0xfe, b[16]);
        assertEquals((byte) 0x01, b[31]);
        assertEquals(0x0b1b, (b[34] & 0xff) << 8 | b[35] & 0xff, "Q_Key at 32..35");
        assertEquals(0xc001, (b[36] & 0xff) << 8 | b[37] & 0xff, "MLID at 36");
        assertEquals(2 << 6 | 4, b[38] & 0xff, "MTU selector and MTU at 38");
        assertEquals(0x11, b[39] & 0xff, "TClass at 39");
        assertEquals(0xffff, (b[40] & 0xff) << 8 | b[41] & 0xff, "P_Key at 40");
        assertEquals(2 << 6 | 3, b[42] & 0xff, "rate at 42");
        assertEquals(0x5abcde7fL, ((long) (b[44] & 0xff) << 24) | (b[45] & 0xff) << 16 | (b[46] & 0xff) << 8
                | b[47] & 0xff, "SL, flow label, hop limit at 44");
        assertEquals(2 << 4 | 1, b[48] & 0xff, "scope and join state at 48");
        assertEquals(0x80, b[49] & 0xff, "proxy join at 49");
        assertEquals(r, McMemberRecord.decode(b, 0));
    }

    @Test
    void pathRecordFieldsSitWhereOpenSmWritesThem() {
        PathRecord p = new PathRecord(0, 0xfe80000000000000L, 0x0011750000000201L, 0xfe80000000000000L,
                0x0011750000000101L, 0x0003, 0x0001, false, 0, 0, 0, true, 1, 0xffff, 0, 7, 2, 4, 2, 3, 2, 0x12, 0);
        byte[] b = new byte[PathRecord.LAYOUT.sizeBytes()];
        p.encode(b, 0);
        assertEquals((byte) 0x02, b[22], "DGID at 8..23");
        assertEquals((byte) 0x01, b[39], "SGID at 24..39");
        assertEquals(3, (b[40] & 0xff) << 8 | b[41] & 0xff, "DLID at 40");
        assertEquals(1, (b[42] & 0xff) << 8 | b[43] & 0xff, "SLID at 42");
        assertEquals(0x81, b[49] & 0xff, "reversible and NumbPath at 49");
        assertEquals(0xffff, (b[50] & 0xff) << 8 | b[51] & 0xff, "P_Key at 50");
        assertEquals(7, b[53] & 0x0f, "SL in 53's low nibble");
        assertEquals(2 << 6 | 4, b[54] & 0xff, "MTU at 54");
        assertEquals(2 << 6 | 3, b[55] & 0xff, "rate at 55");
        assertEquals(p, PathRecord.decode(b, 0));
    }
}
