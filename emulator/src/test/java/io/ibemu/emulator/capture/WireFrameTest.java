package io.ibemu.emulator.capture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.ibemu.emulator.fabric.BthOpcode;
import io.ibemu.emulator.fabric.LinkPacket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;

class WireFrameTest {
    private static final byte[] GRH = new byte[40];

    static {
        GRH[0] = 0x60;
        GRH[7] = 64;
        GRH[8] = (byte) 0xFE;
        GRH[9] = (byte) 0x80;
        GRH[23] = 1;
        GRH[24] = (byte) 0xFE;
        GRH[25] = (byte) 0x80;
        GRH[39] = 2;
    }

    private static LinkPacket.Builder write(int payload) {
        return LinkPacket.builder(BthOpcode.RC_RDMA_WRITE_ONLY).lrh(0, 3, 0x11, 0x22)
                .bth(0xFFFF, 0x12, 0x123456, false, true).reth(0x1000, 0x77, payload)
                .payload(ByteBuffer.wrap(new byte[payload]));
    }

    @Test
    void lengthsPaddingAndHeadersAreWhereTheSpecPutsThem() {
        byte[] f = WireFrame.encode(write(5).build());
        // LRH 8 + BTH 12 + RETH 16 + 5 payload + 3 pad + ICRC 4, then VCRC 2
        assertEquals(48 + 2, f.length);
        ByteBuffer b = ByteBuffer.wrap(f);
        assertEquals(0x3 << 4 | 0x2, f[1] & 0xFF, "SL 3, LNH IBA local");
        assertEquals(0x22, b.getShort(2));
        assertEquals(48 / 4, b.getShort(4) & 0x7FF, "PktLen in words, LRH through ICRC");
        assertEquals(0x11, b.getShort(6));
        assertEquals(0x0A, f[8] & 0xFF, "RC RDMA WRITE only");
        assertEquals(3, f[9] >> 4 & 3, "PadCnt");
        assertEquals(0x80123456, b.getInt(16), "AckReq and PSN");
        assertEquals(0x1000, b.getLong(20));
        assertEquals(0x77, b.getInt(28));
        assertEquals(5, b.getInt(32));
    }

    @Test
    void theIcrcIgnoresTheVariantFieldsAndCoversTheRest() {
        byte[] base = WireFrame.encode(write(8).grh(GRH).build());
        byte[] otherVl = WireFrame.encode(LinkPacket.builder(BthOpcode.RC_RDMA_WRITE_ONLY).lrh(7, 3, 0x11, 0x22)
                .grh(variantGrh()).bth(0xFFFF, 0x12, 0x123456, false, true).reth(0x1000, 0x77, 8)
                .payload(ByteBuffer.wrap(new byte[8])).build());
        int icrcAt = base.length - 6;
        assertArrayEquals(Arrays.copyOfRange(base, icrcAt, icrcAt + 4), Arrays.copyOfRange(otherVl, icrcAt, icrcAt + 4),
                "VL, traffic class, flow label and hop limit are outside the ICRC");
        assertNotEquals(vcrc(base), vcrc(otherVl), "the VCRC covers them");
        byte[] otherDlid = WireFrame.encode(write(8).grh(GRH).lrh(0, 3, 0x11, 0x23).build());
        assertNotEquals(icrc(base), icrc(otherDlid), "the DLID is inside it");
        assertEquals(12 + 16 + 8 + 4, (base[8 + 4] & 0xFF) << 8 | base[8 + 5] & 0xFF,
                "GRH PayLen counts BTH through ICRC");
        assertEquals(0x1B, base[8 + 6], "NxtHdr: IBA transport");
    }

    @Test
    void theIcrcIsCrc32OfThePacketWithVariantFieldsAsOnes() {
        byte[] f = WireFrame.encode(write(4).build());
        byte[] masked = Arrays.copyOf(f, f.length - 6);
        masked[0] |= (byte) 0xF0;
        masked[8 + 4] = (byte) 0xFF;
        CRC32 crc = new CRC32();
        crc.update(masked);
        assertEquals((int) crc.getValue(), icrc(f));
    }

    @Test
    void aMadGoesOutAsUdSendOnlyWithItsDeth() {
        byte[] mad = new byte[256];
        mad[1] = (byte) 0x81;
        byte[] f = WireFrame.encode(LinkPacket.builder(BthOpcode.UD_SEND_ONLY).lrh(LinkPacket.VL15, 0, 0xFFFF, 0xFFFF)
                .bth(0xFFFF, 0, 0, false, false).deth(0, 0).payload(ByteBuffer.wrap(mad)).build());
        assertEquals(8 + 12 + 8 + 256 + 4 + 2, f.length);
        assertEquals(0xF0, f[0] & 0xF0, "VL15");
        assertEquals(0x64, f[8] & 0xFF);
        assertEquals((byte) 0x81, f[8 + 12 + 8 + 1]);
    }

    private static byte[] variantGrh() {
        byte[] g = GRH.clone();
        g[0] |= 0x0A;
        g[1] = (byte) 0xB5;
        g[3] = 0x42;
        g[7] = 3;
        return g;
    }

    private static int icrc(byte[] f) {
        return ByteBuffer.wrap(f, f.length - 6, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
    }

    private static int vcrc(byte[] f) {
        return ByteBuffer.wrap(f, f.length - 2, 2).order(ByteOrder.LITTLE_ENDIAN).getShort() & 0xFFFF;
    }
}
