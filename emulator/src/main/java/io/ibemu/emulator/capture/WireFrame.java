package io.ibemu.emulator.capture;

import io.ibemu.emulator.fabric.BthOpcode;
import io.ibemu.emulator.fabric.BthOpcode.Headers;
import io.ibemu.emulator.fabric.LinkPacket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32;

/**
 * The codec from a {@link LinkPacket} to its octets on the wire: LRH (IBA 7.7), GRH (8.3),
 * BTH and the extended transport headers (9.2-9.4), payload padded to 4 octets, ICRC (7.8.1)
 * and VCRC (7.8.2). Big-endian fields throughout, as the spec draws them.
 */
public final class WireFrame {
    static final int LRH = 8;
    static final int GRH = 40;
    static final int BTH = 12;
    static final int ICRC = 4;
    static final int VCRC = 2;
    /** LRH LNH: what follows the LRH (IBA 7.7.5): IBA local (BTH) or IBA global (GRH). */
    private static final int LNH_LOCAL = 0x2;
    private static final int LNH_GLOBAL = 0x3;
    /** GRH NxtHdr for an IBA transport header (IBA 8.3.1). */
    private static final int NEXT_HEADER_BTH = 0x1B;
    /** VCRC polynomial x^16 + x^12 + x^3 + x + 1 (0x100B), bit-reversed for the LSB-first shift. */
    private static final int VCRC_POLY_REFLECTED = 0xD008;

    private WireFrame() {
    }

    /** The packet's octets, LRH through VCRC. */
    public static byte[] encode(LinkPacket p) {
        BthOpcode op = p.opcode();
        int payload = p.payloadLength();
        int pad = -payload & 3;
        int ext = extendedLength(op);
        boolean global = p.grh() != null;
        int transport = BTH + ext + payload + pad + ICRC;
        int length = LRH + (global ? GRH : 0) + transport;
        ByteBuffer b = ByteBuffer.allocate(length + VCRC).order(ByteOrder.BIG_ENDIAN);
        // LRH: VL, LVer 0, SL, LNH, DLID, PktLen (words, LRH through ICRC), SLID
        b.put((byte) (p.vl() << 4));
        b.put((byte) ((p.sl() & 0xF) << 4 | (global ? LNH_GLOBAL : LNH_LOCAL)));
        b.putShort((short) p.dlid());
        b.putShort((short) (length / 4 & 0x7FF));
        b.putShort((short) p.slid());
        if (global) {
            byte[] g = p.grh().clone();
            g[4] = (byte) (transport >>> 8); // PayLen: BTH through ICRC
            g[5] = (byte) transport;
            g[6] = NEXT_HEADER_BTH;
            b.put(g, 0, GRH);
        }
        // BTH: OpCode, SE M PadCnt TVer, P_Key, resv8a, DestQP, A resv7, PSN
        b.put((byte) op.code());
        b.put((byte) ((p.solicited() ? 0x80 : 0) | pad << 4));
        b.putShort((short) p.pkey());
        b.putInt(p.destQp() & 0xFFFFFF);
        b.putInt((p.ackRequest() ? 0x80000000 : 0) | p.psn() & 0xFFFFFF);
        if (op.has(Headers.DETH)) {
            b.putInt(p.qkey());
            b.putInt(p.srcQp() & 0xFFFFFF);
        }
        if (op.has(Headers.XRCETH)) {
            b.putInt(p.xrcSrq() & 0xFFFFFF);
        }
        if (op.has(Headers.RETH)) {
            b.putLong(p.virtualAddress());
            b.putInt(p.rkey());
            b.putInt(p.dmaLength());
        }
        if (op.has(Headers.ATOMIC_ETH)) {
            b.putLong(p.virtualAddress());
            b.putInt(p.rkey());
            b.putLong(p.swapAdd());
            b.putLong(p.compare());
        }
        if (op.has(Headers.IMM)) {
            b.putInt(p.immediate());
        }
        if (op.has(Headers.AETH)) {
            b.putInt((p.syndrome() & 0xFF) << 24 | p.msn() & 0xFFFFFF);
        }
        if (op.has(Headers.ATOMIC_ACK_ETH)) {
            b.putLong(p.originalData());
        }
        if (payload > 0) {
            b.put(p.payload().duplicate());
        }
        b.position(b.position() + pad);
        byte[] frame = b.array();
        int icrc = icrc(frame, length - ICRC, global);
        // the ICRC goes out least significant octet first, as rxe stores crc32_le's value
        b.order(ByteOrder.LITTLE_ENDIAN).putInt(icrc);
        b.putShort((short) vcrc(frame, length)); // the same LSB-first convention as the ICRC
        return frame;
    }

    /** Octets of the extended transport headers {@code op} carries. */
    static int extendedLength(BthOpcode op) {
        int n = 0;
        n += op.has(Headers.DETH) ? 8 : 0;
        n += op.has(Headers.XRCETH) ? 4 : 0;
        n += op.has(Headers.RETH) ? 16 : 0;
        n += op.has(Headers.ATOMIC_ETH) ? 28 : 0;
        n += op.has(Headers.IMM) ? 4 : 0;
        n += op.has(Headers.AETH) ? 4 : 0;
        n += op.has(Headers.ATOMIC_ACK_ETH) ? 8 : 0;
        return n;
    }

    /**
     * ICRC (IBA 7.8.1): CRC-32 as Ethernet's over the packet from the LRH, with the fields a
     * switch or router may change set to ones: LRH VL; GRH traffic class, flow label, hop
     * limit; BTH resv8a.
     */
    static int icrc(byte[] frame, int covered, boolean global) {
        byte[] m = java.util.Arrays.copyOf(frame, covered);
        m[0] |= (byte) 0xF0;
        int bth = LRH;
        if (global) {
            m[LRH] |= 0x0F;
            m[LRH + 1] = (byte) 0xFF;
            m[LRH + 2] = (byte) 0xFF;
            m[LRH + 3] = (byte) 0xFF;
            m[LRH + 7] = (byte) 0xFF;
            bth += GRH;
        }
        m[bth + 4] = (byte) 0xFF;
        CRC32 crc = new CRC32();
        crc.update(m);
        return (int) crc.getValue();
    }

    /** VCRC (IBA 7.8.2): CRC-16 over every octet from LRH through ICRC, seed all ones, inverted. */
    static int vcrc(byte[] frame, int covered) {
        int crc = 0xFFFF;
        for (int i = 0; i < covered; i++) {
            crc ^= frame[i] & 0xFF;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 1) != 0 ? crc >>> 1 ^ VCRC_POLY_REFLECTED : crc >>> 1;
            }
        }
        return ~crc & 0xFFFF;
    }
}
