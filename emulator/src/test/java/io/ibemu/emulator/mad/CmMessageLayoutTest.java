package io.ibemu.emulator.mad;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The CM messages against IBA vol 1 tables 106-120 as the kernel's ibta_vol1_c12.h places them:
 * each field set alone to a distinctive value must land on the bytes (MAD offset = 24 + the
 * table's byte) and bits the spec gives, and every message survives a round trip.
 */
class CmMessageLayoutTest {
    private static final int H = CmAttribute.DATA_OFFSET;

    private static byte[] pd(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed + i * 7);
        }
        return b;
    }

    private static CmReq req() {
        return new CmReq(0x11223344, 0x1000000000000abcL, 0x0002c90300a1b2c3L, 0x80010000, 0xabcdef, 0x5a, 0, 0xa5, 0,
                0x15, CmReq.TRANSPORT_UC, true, 0x123456, 0x13, 5, 0xffff, 4, false, 7, 15, true, 0, 0x0102, 0x0304,
                0xfe80000000000000L, 0x0002c90300a1b2c3L, 0xfe80000000000000L, 0x0002c90300d4e5f6L, 0xabcde, 0x2a,
                0xb7, 0x40, 0x9, true, 0x12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, false, 0, false, pd(92, 3));
    }

    private static byte[] encoded(CmReq r) {
        byte[] mad = CmAttribute.mad(CmAttribute.REQ, 1);
        r.encode(mad);
        return mad;
    }

    @Test
    void reqFieldsSitWhereTable106PutsThem() {
        byte[] m = encoded(req());
        assertEquals(0x11, m[H] & 0xff, "Local Communication ID at byte 0");
        assertEquals(0x10, m[H + 8] & 0xff, "ServiceID at byte 8");
        assertEquals(0xc3, m[H + 23] & 0xff, "Local CA GUID ends at byte 23");
        assertEquals(0x80, m[H + 28] & 0xff, "Local Q_Key at byte 28");
        assertArrayEquals(new byte[] {(byte) 0xab, (byte) 0xcd, (byte) 0xef}, Arrays.copyOfRange(m, H + 32, H + 35),
                "Local QPN: 24 bits at byte 32");
        assertEquals(0x5a, m[H + 35] & 0xff, "Responder Resources at byte 35");
        assertEquals(0xa5, m[H + 39] & 0xff, "Initiator Depth at byte 39");
        assertEquals((0x15 << 3) | (1 << 1) | 1, m[H + 43] & 0xff,
                "byte 43: remote CM response timeout (5), transport service type (2), flow control (1)");
        assertArrayEquals(new byte[] {0x12, 0x34, 0x56}, Arrays.copyOfRange(m, H + 44, H + 47), "Starting PSN");
        assertEquals((0x13 << 3) | 5, m[H + 47] & 0xff, "byte 47: local CM response timeout, retry count");
        assertEquals(0xff, m[H + 48] & 0xff, "P_Key at byte 48");
        assertEquals((4 << 4) | 7, m[H + 50] & 0xff, "byte 50: path MTU (4), RDC exists (1), RNR retry count (3)");
        assertEquals((15 << 4) | (1 << 3), m[H + 51] & 0xff, "byte 51: max CM retries (4), SRQ (1)");
        assertEquals(0x0102, ((m[H + 52] & 0xff) << 8) | (m[H + 53] & 0xff), "primary local LID at 52");
        assertEquals(0x0304, ((m[H + 54] & 0xff) << 8) | (m[H + 55] & 0xff), "primary remote LID at 54");
        assertEquals(0xfe, m[H + 56] & 0xff, "primary local GID at 56");
        assertEquals(0xc3, m[H + 71] & 0xff);
        assertEquals(0xf6, m[H + 87] & 0xff, "primary remote GID ends at 87");
        assertArrayEquals(new byte[] {(byte) 0xab, (byte) 0xcd, (byte) 0xe0}, Arrays.copyOfRange(m, H + 88, H + 91),
                "flow label: 20 bits at byte 88");
        assertEquals(0x2a, m[H + 91] & 0x3f, "packet rate: low 6 bits of byte 91");
        assertEquals(0xb7, m[H + 92] & 0xff, "traffic class at 92");
        assertEquals(0x40, m[H + 93] & 0xff, "hop limit at 93");
        assertEquals((9 << 4) | (1 << 3), m[H + 94] & 0xff, "byte 94: SL (4), subnet local (1)");
        assertEquals(0x12 << 3, m[H + 95] & 0xff, "local ACK timeout: top 5 bits of byte 95");
        assertArrayEquals(pd(92, 3), Arrays.copyOfRange(m, H + 140, H + 232), "private data: bytes 140..231");
    }

    @Test
    void repFieldsSitWhereTable110PutsThem() {
        CmRep rep = new CmRep(1, 2, 0x01020304, 0x0a0b0c, 0, 0x0d0e0f, 0x21, 0x22, 0x1f, 2, true, 6, true,
                0x1122334455667788L, pd(196, 9));
        byte[] m = CmAttribute.mad(CmAttribute.REP, 1);
        rep.encode(m);
        assertEquals(2, m[H + 7] & 0xff, "Remote Communication ID at 4");
        assertEquals(0x01, m[H + 8] & 0xff, "Local Q_Key at 8");
        assertEquals(0x0a, m[H + 12] & 0xff, "Local QPN at 12");
        assertEquals(0x0d, m[H + 20] & 0xff, "Starting PSN at 20");
        assertEquals(0x21, m[H + 24] & 0xff);
        assertEquals(0x22, m[H + 25] & 0xff);
        assertEquals((0x1f << 3) | (2 << 1) | 1, m[H + 26] & 0xff, "byte 26: target ACK delay, failover, flow control");
        assertEquals((6 << 5) | (1 << 4), m[H + 27] & 0xff, "byte 27: RNR retry count (3), SRQ (1)");
        assertEquals(0x11, m[H + 28] & 0xff, "Local CA GUID at 28");
        assertArrayEquals(pd(196, 9), Arrays.copyOfRange(m, H + 36, H + 232));
        assertEquals(rep.localCaGuid(), CmRep.decode(m).localCaGuid());
    }

    @Test
    void rejMraDreqSidrFieldsSitWhereTheTablesPutThem() {
        byte[] m = CmAttribute.mad(CmAttribute.REJ, 1);
        new CmRej(1, 2, CmAttribute.MESSAGE_REP, 9, 28, pd(72, 1), pd(148, 2)).encode(m);
        assertEquals(CmAttribute.MESSAGE_REP << 6, m[H + 8] & 0xff, "message rejected: top 2 bits of byte 8");
        assertEquals(9 << 1, m[H + 9] & 0xff, "rejected info length: top 7 bits of byte 9");
        assertEquals(28, m[H + 11] & 0xff, "Reason at 10..11");
        assertArrayEquals(pd(72, 1), Arrays.copyOfRange(m, H + 12, H + 84), "ARI at 12");
        assertArrayEquals(pd(148, 2), Arrays.copyOfRange(m, H + 84, H + 232), "private data at 84");

        m = CmAttribute.mad(CmAttribute.MRA, 1);
        new CmMra(1, 2, CmAttribute.MESSAGE_OTHER, 0x11, pd(222, 4)).encode(m);
        assertEquals(CmAttribute.MESSAGE_OTHER << 6, m[H + 8] & 0xff);
        assertEquals(0x11 << 3, m[H + 9] & 0xff, "service timeout: top 5 bits of byte 9");
        assertArrayEquals(pd(222, 4), Arrays.copyOfRange(m, H + 10, H + 232));

        m = CmAttribute.mad(CmAttribute.DREQ, 1);
        new CmDreq(1, 2, 0x123456, pd(220, 5)).encode(m);
        assertArrayEquals(new byte[] {0x12, 0x34, 0x56}, Arrays.copyOfRange(m, H + 8, H + 11), "remote QPN at 8");
        assertArrayEquals(pd(220, 5), Arrays.copyOfRange(m, H + 12, H + 232));

        m = CmAttribute.mad(CmAttribute.SIDR_REP, 1);
        new CmSidrRep(7, 2, 72, 0x654321, 0x99L, 0x11111111, pd(72, 6), pd(136, 7)).encode(m);
        assertEquals(2, m[H + 4] & 0xff, "status at 4");
        assertEquals(72, m[H + 5] & 0xff, "additional information length at 5");
        assertEquals(0x65, m[H + 8] & 0xff, "QPN at 8");
        assertEquals(0x99, m[H + 19] & 0xff, "ServiceID at 12..19");
        assertEquals(0x11, m[H + 20] & 0xff, "Q_Key at 20");
        assertArrayEquals(pd(72, 6), Arrays.copyOfRange(m, H + 24, H + 96));
        assertArrayEquals(pd(136, 7), Arrays.copyOfRange(m, H + 96, H + 232));

        m = CmAttribute.mad(CmAttribute.SIDR_REQ, 1);
        new CmSidrReq(7, 0x8001, 0x0106000000004321L, pd(216, 8)).encode(m);
        assertEquals(0x80, m[H + 4] & 0xff, "P_Key at 4");
        assertEquals(0x01, m[H + 8] & 0xff, "ServiceID at 8");
        assertArrayEquals(pd(216, 8), Arrays.copyOfRange(m, H + 16, H + 232));
    }

    @Test
    void everyMessageRoundTripsAndTheHeaderSaysCmSend() {
        byte[] m = encoded(req());
        assertEquals(MgmtClass.COMM_MGMT, Mad.mgmtClass(m));
        assertEquals(2, Mad.classVersion(m));
        assertEquals(Method.SEND, Mad.method(m));
        assertEquals(CmAttribute.REQ, Mad.attributeId(m));
        CmReq back = CmReq.decode(m);
        assertArrayEquals(req().privateData(), back.privateData());
        assertEquals(CmReq.CODEC.dump(req()), CmReq.CODEC.dump(back));
        for (Object[] c : new Object[][] {
            {CmMra.CODEC, new CmMra(5, 6, 1, 20, pd(222, 1))},
            {CmRej.CODEC, new CmRej(5, 6, 0, 0, 8, pd(72, 2), pd(148, 3))},
            {CmRtu.CODEC, new CmRtu(5, 6, pd(224, 4))},
            {CmDreq.CODEC, new CmDreq(5, 6, 77, pd(220, 5))},
            {CmDrep.CODEC, new CmDrep(5, 6, pd(224, 6))},
            {CmSidrReq.CODEC, new CmSidrReq(5, 0xffff, 9L, pd(216, 7))},
            {CmSidrRep.CODEC, new CmSidrRep(5, 0, 0, 12, 9L, 0x1234, new byte[72], pd(136, 8))}}) {
            roundTrip((RecordCodec<?>) c[0], (Record) c[1]);
        }
    }

    @SuppressWarnings("unchecked")
    private static <R extends Record> void roundTrip(RecordCodec<R> codec, Record r) {
        byte[] b = new byte[Mad.SIZE];
        codec.encode((R) r, b, H);
        R back = codec.decode(b, H);
        assertEquals(codec.dump((R) r), codec.dump(back), codec.layout().name());
        assertEquals(Mad.SIZE, H + codec.layout().sizeBytes(), "every CM message fills the MAD");
    }

    @Test
    void shortPrivateDataIsZeroPaddedAndLongIsRefused() {
        byte[] m = CmAttribute.mad(CmAttribute.RTU, 1);
        new CmRtu(1, 2, new byte[] {9, 9}).encode(m);
        byte[] back = CmRtu.decode(m).privateData();
        assertEquals(CmRtu.PRIVATE_DATA_SIZE, back.length);
        assertEquals(9, back[1]);
        assertEquals(0, back[2]);
        assertThrows(IllegalArgumentException.class, () -> new CmRtu(1, 2, new byte[225]).encode(m));
    }
}
