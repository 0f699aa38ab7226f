package io.ibemu.emulator.fabric;

/**
 * The BTH OpCodes of IBA table 38 this fabric sends, each with the extended transport headers
 * that follow its BTH (the kernel's rxe_opcode[] table holds the same facts). The high three
 * bits name the transport, the low five the operation.
 */
public enum BthOpcode {
    RC_SEND_FIRST(0x00, 0), RC_SEND_MIDDLE(0x01, 0), RC_SEND_LAST(0x02, 0), RC_SEND_LAST_IMM(0x03, Headers.IMM),
    RC_SEND_ONLY(0x04, 0), RC_SEND_ONLY_IMM(0x05, Headers.IMM),
    RC_RDMA_WRITE_FIRST(0x06, Headers.RETH), RC_RDMA_WRITE_MIDDLE(0x07, 0), RC_RDMA_WRITE_LAST(0x08, 0),
    RC_RDMA_WRITE_LAST_IMM(0x09, Headers.IMM), RC_RDMA_WRITE_ONLY(0x0A, Headers.RETH),
    RC_RDMA_WRITE_ONLY_IMM(0x0B, Headers.RETH | Headers.IMM), RC_RDMA_READ_REQUEST(0x0C, Headers.RETH),
    RC_RDMA_READ_RESPONSE_FIRST(0x0D, Headers.AETH), RC_RDMA_READ_RESPONSE_MIDDLE(0x0E, 0),
    RC_RDMA_READ_RESPONSE_LAST(0x0F, Headers.AETH), RC_RDMA_READ_RESPONSE_ONLY(0x10, Headers.AETH),
    RC_ACKNOWLEDGE(0x11, Headers.AETH), RC_ATOMIC_ACKNOWLEDGE(0x12, Headers.AETH | Headers.ATOMIC_ACK_ETH),
    RC_COMPARE_SWAP(0x13, Headers.ATOMIC_ETH), RC_FETCH_ADD(0x14, Headers.ATOMIC_ETH),

    UC_SEND_FIRST(0x20, 0), UC_SEND_MIDDLE(0x21, 0), UC_SEND_LAST(0x22, 0), UC_SEND_LAST_IMM(0x23, Headers.IMM),
    UC_SEND_ONLY(0x24, 0), UC_SEND_ONLY_IMM(0x25, Headers.IMM),
    UC_RDMA_WRITE_FIRST(0x26, Headers.RETH), UC_RDMA_WRITE_MIDDLE(0x27, 0), UC_RDMA_WRITE_LAST(0x28, 0),
    UC_RDMA_WRITE_LAST_IMM(0x29, Headers.IMM), UC_RDMA_WRITE_ONLY(0x2A, Headers.RETH),
    UC_RDMA_WRITE_ONLY_IMM(0x2B, Headers.RETH | Headers.IMM),

    UD_SEND_ONLY(0x64, Headers.DETH), UD_SEND_ONLY_IMM(0x65, Headers.DETH | Headers.IMM),

    XRC_SEND_FIRST(0xA0, Headers.XRCETH), XRC_SEND_MIDDLE(0xA1, Headers.XRCETH),
    XRC_SEND_LAST(0xA2, Headers.XRCETH), XRC_SEND_LAST_IMM(0xA3, Headers.XRCETH | Headers.IMM),
    XRC_SEND_ONLY(0xA4, Headers.XRCETH), XRC_SEND_ONLY_IMM(0xA5, Headers.XRCETH | Headers.IMM),
    XRC_RDMA_WRITE_FIRST(0xA6, Headers.XRCETH | Headers.RETH), XRC_RDMA_WRITE_MIDDLE(0xA7, Headers.XRCETH),
    XRC_RDMA_WRITE_LAST(0xA8, Headers.XRCETH), XRC_RDMA_WRITE_LAST_IMM(0xA9, Headers.XRCETH | Headers.IMM),
    XRC_RDMA_WRITE_ONLY(0xAA, Headers.XRCETH | Headers.RETH),
    XRC_RDMA_WRITE_ONLY_IMM(0xAB, Headers.XRCETH | Headers.RETH | Headers.IMM),
    XRC_RDMA_READ_REQUEST(0xAC, Headers.XRCETH | Headers.RETH),
    XRC_RDMA_READ_RESPONSE_FIRST(0xAD, Headers.AETH), XRC_RDMA_READ_RESPONSE_MIDDLE(0xAE, 0),
    XRC_RDMA_READ_RESPONSE_LAST(0xAF, Headers.AETH), XRC_RDMA_READ_RESPONSE_ONLY(0xB0, Headers.AETH),
    XRC_ACKNOWLEDGE(0xB1, Headers.AETH), XRC_ATOMIC_ACKNOWLEDGE(0xB2, Headers.AETH | Headers.ATOMIC_ACK_ETH),
    XRC_COMPARE_SWAP(0xB3, Headers.XRCETH | Headers.ATOMIC_ETH),
    XRC_FETCH_ADD(0xB4, Headers.XRCETH | Headers.ATOMIC_ETH);

    /** Which extended headers follow the BTH, in wire order (IBA 9.2: DETH, XRCETH, RETH or AtomicETH, ImmDt, AETH, AtomicAckETH). */
    public static final class Headers {
        public static final int DETH = 1;
        public static final int XRCETH = 1 << 1;
        public static final int RETH = 1 << 2;
        public static final int ATOMIC_ETH = 1 << 3;
        public static final int IMM = 1 << 4;
        public static final int AETH = 1 << 5;
        public static final int ATOMIC_ACK_ETH = 1 << 6;

        private Headers() {
        }
    }

    private static final BthOpcode[] BY_CODE = new BthOpcode[256];

    static {
        for (BthOpcode o : values()) {
            BY_CODE[o.code] = o;
        }
    }

    private final int code;
    private final int headers;

    BthOpcode(int code, int headers) {
        this.code = code;
        this.headers = headers;
    }

    public int code() {
        return code;
    }

    public boolean has(int header) {
        return (headers & header) != 0;
    }

    /** The same operation on another transport (the base is {@code 0x00} RC, {@code 0x20} UC, {@code 0xA0} XRC). */
    public BthOpcode on(int transportBase) {
        BthOpcode o = BY_CODE[transportBase | code & 0x1F];
        if (o == null) {
            throw new IllegalArgumentException(this + " has no form on transport 0x" + Integer.toHexString(transportBase));
        }
        return o;
    }

    public static BthOpcode of(int code) {
        BthOpcode o = BY_CODE[code & 0xFF];
        if (o == null) {
            throw new IllegalArgumentException("BTH opcode 0x" + Integer.toHexString(code) + " is not one ibemu sends");
        }
        return o;
    }
}
