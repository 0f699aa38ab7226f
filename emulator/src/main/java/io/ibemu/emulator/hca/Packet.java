package io.ibemu.emulator.hca;

import java.nio.ByteBuffer;

/**
 * A request message as the responder sees it (the transport headers of IBA 9.2-9.4 that
 * matter here, one record per message rather than per MTU-sized packet): source QP and LID,
 * SL, P_Key and Q_Key, the operation ({@link WrOpcode} numbers), its payload (SEND, WRITE),
 * RETH fields (remote address, rkey, length), AtomicETH operands, immediate data, the GRH's 40
 * bytes when present, and the XRC SRQ number.
 */
record Packet(int opcode, int srcQpn, int slid, int dlid, int sl, int pkey, int qkey, ByteBuffer payload,
        long length, long remoteAddr, int rkey, int imm, boolean solicited, long compareAdd, long swap, byte[] grh,
        int xrcSrqNum) {

    boolean hasImm() {
        return opcode == WrOpcode.SEND_WITH_IMM || opcode == WrOpcode.RDMA_WRITE_WITH_IMM;
    }

    /** The payload from its start, for one more receiver (multicast gives each its own view). */
    ByteBuffer data() {
        return payload == null ? ByteBuffer.allocate(0) : payload.duplicate().rewind();
    }

    /** The GRH destination GID (bytes 24..39), or null without a GRH. */
    byte[] dgid() {
        if (grh == null) {
            return null;
        }
        byte[] g = new byte[16];
        System.arraycopy(grh, 24, g, 0, 16);
        return g;
    }

    /**
     * A GRH (IBA 8.3): IPVer 6, traffic class, flow label, PayLen (BTH through ICRC), NxtHdr 0x1B,
     * hop limit, source and destination GID.
     */
    static byte[] grh(GlobalRoute route, byte[] sgid, long payloadAndHeaders) {
        byte[] g = new byte[Traffic.GRH];
        int tc = route.trafficClass() & 0xFF;
        int flow = route.flowLabel() & 0xFFFFF;
        g[0] = (byte) (6 << 4 | tc >>> 4);
        g[1] = (byte) ((tc & 0xF) << 4 | flow >>> 16);
        g[2] = (byte) (flow >>> 8);
        g[3] = (byte) flow;
        g[4] = (byte) (payloadAndHeaders >>> 8);
        g[5] = (byte) payloadAndHeaders;
        g[6] = 0x1B;
        g[7] = (byte) route.hopLimit();
        System.arraycopy(sgid, 0, g, 8, 16);
        System.arraycopy(route.dgid(), 0, g, 24, 16);
        return g;
    }
}
