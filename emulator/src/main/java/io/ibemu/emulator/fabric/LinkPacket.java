package io.ibemu.emulator.fabric;

import java.nio.ByteBuffer;

/**
 * One packet as it crosses a link (IBA 7.7, 8.3, 9.2-9.4): LRH fields, the GRH's 40 octets when
 * present, the BTH, the extended transport headers its {@link BthOpcode} calls for, and the
 * payload. Built only for a port that is being captured; the wire octets (padding, ICRC, VCRC)
 * are the capture codec's business.
 *
 * @param payload read from its position to its limit; null for none
 */
public record LinkPacket(int vl, int sl, int slid, int dlid, byte[] grh, BthOpcode opcode, boolean solicited,
        int pkey, int destQp, boolean ackRequest, int psn, int qkey, int srcQp, int xrcSrq, long virtualAddress,
        int rkey, int dmaLength, long swapAdd, long compare, int immediate, int syndrome, int msn,
        long originalData, ByteBuffer payload) {

    /** The VL every SMP travels on (IBA 7.6.5: QP0 traffic uses the management VL). */
    public static final int VL15 = 15;

    public int payloadLength() {
        return payload == null ? 0 : payload.remaining();
    }

    public static Builder builder(BthOpcode opcode) {
        return new Builder(opcode);
    }

    /** The fields a sender knows, set by name; the rest stay zero. */
    public static final class Builder {
        private final BthOpcode opcode;
        private int vl;
        private int sl;
        private int slid;
        private int dlid;
        private byte[] grh;
        private boolean solicited;
        private int pkey = 0xFFFF;
        private int destQp;
        private boolean ackRequest;
        private int psn;
        private int qkey;
        private int srcQp;
        private int xrcSrq;
        private long virtualAddress;
        private int rkey;
        private int dmaLength;
        private long swapAdd;
        private long compare;
        private int immediate;
        private int syndrome;
        private int msn;
        private long originalData;
        private ByteBuffer payload;

        private Builder(BthOpcode opcode) {
            this.opcode = opcode;
        }

        public Builder lrh(int vl, int sl, int slid, int dlid) {
            this.vl = vl;
            this.sl = sl;
            this.slid = slid;
            this.dlid = dlid;
            return this;
        }

        public Builder grh(byte[] grh) {
            this.grh = grh;
            return this;
        }

        public Builder bth(int pkey, int destQp, int psn, boolean solicited, boolean ackRequest) {
            this.pkey = pkey;
            this.destQp = destQp;
            this.psn = psn;
            this.solicited = solicited;
            this.ackRequest = ackRequest;
            return this;
        }

        public Builder deth(int qkey, int srcQp) {
            this.qkey = qkey;
            this.srcQp = srcQp;
            return this;
        }

        public Builder xrcSrq(int srq) {
            this.xrcSrq = srq;
            return this;
        }

        public Builder reth(long virtualAddress, int rkey, int dmaLength) {
            this.virtualAddress = virtualAddress;
            this.rkey = rkey;
            this.dmaLength = dmaLength;
            return this;
        }

        public Builder atomic(long virtualAddress, int rkey, long swapAdd, long compare) {
            this.virtualAddress = virtualAddress;
            this.rkey = rkey;
            this.swapAdd = swapAdd;
            this.compare = compare;
            return this;
        }

        public Builder immediate(int imm) {
            this.immediate = imm;
            return this;
        }

        public Builder aeth(int syndrome, int msn) {
            this.syndrome = syndrome;
            this.msn = msn;
            return this;
        }

        public Builder originalData(long original) {
            this.originalData = original;
            return this;
        }

        public Builder payload(ByteBuffer payload) {
            this.payload = payload;
            return this;
        }

        public LinkPacket build() {
            return new LinkPacket(vl, sl, slid, dlid, grh, opcode, solicited, pkey, destQp, ackRequest, psn, qkey,
                    srcQp, xrcSrq, virtualAddress, rkey, dmaLength, swapAdd, compare, immediate, syndrome, msn,
                    originalData, payload);
        }
    }
}
