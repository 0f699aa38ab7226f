package io.ibemu.emulator.hca;

import java.util.List;

/**
 * ibv_send_wr as the model takes it. {@code opcode} is a {@link WrOpcode} value, {@code
 * sendFlags} the {@code FLAG_*} bits there. With {@link WrOpcode#FLAG_INLINE}, {@code
 * inlineData} holds the bytes the ABI layer already read from the caller and {@code sgList} is
 * ignored for the payload (but its count is still checked against max_send_sge, as the kernel
 * does). {@code immData} is in host order. RDMA: {@code remoteAddr}/{@code rkey}; atomics also
 * {@code compareAdd}/{@code swap} and an 8-byte SGE that receives the original value. UD:
 * {@code ah}, {@code remoteQpn}, {@code remoteQkey} (high bit set: use the QP's own Q_Key, IBA
 * 10.2.4). XRC: {@code xrcRemoteSrqNum}. BIND_MW: {@code bind}; LOCAL_INV: the rkey to invalidate
 * in {@code immData}.
 */
public record SendWorkRequest(long wrId, int opcode, int sendFlags, List<Sge> sgList, byte[] inlineData,
        int immData, long remoteAddr, int rkey, long compareAdd, long swap, AddressHandle ah, int remoteQpn,
        int remoteQkey, int xrcRemoteSrqNum, MwBind bind) {

    public SendWorkRequest {
        sgList = List.copyOf(sgList);
    }

    /** SEND (or SEND_WITH_IMM when {@code withImm}) of the SGEs, on a connected QP. */
    public static SendWorkRequest send(long wrId, int flags, List<Sge> sges) {
        return new SendWorkRequest(wrId, WrOpcode.SEND, flags, sges, null, 0, 0, 0, 0, 0, null, 0, 0, 0, null);
    }

    public static SendWorkRequest sendWithImm(long wrId, int flags, List<Sge> sges, int imm) {
        return new SendWorkRequest(wrId, WrOpcode.SEND_WITH_IMM, flags, sges, null, imm, 0, 0, 0, 0, null, 0, 0, 0, null);
    }

    /** UD SEND to {@code qpn} at {@code ah} with Q_Key {@code qkey}. */
    public static SendWorkRequest ud(long wrId, int flags, List<Sge> sges, AddressHandle ah, int qpn, int qkey) {
        return new SendWorkRequest(wrId, WrOpcode.SEND, flags, sges, null, 0, 0, 0, 0, 0, ah, qpn, qkey, 0, null);
    }

    /** RDMA WRITE, RDMA WRITE with immediate or RDMA READ ({@code opcode}) at {@code remoteAddr}/{@code rkey}. */
    public static SendWorkRequest rdma(long wrId, int opcode, int flags, List<Sge> sges, long remoteAddr, int rkey,
            int imm) {
        return new SendWorkRequest(wrId, opcode, flags, sges, null, imm, remoteAddr, rkey, 0, 0, null, 0, 0, 0, null);
    }

    /** ATOMIC_CMP_AND_SWP or ATOMIC_FETCH_AND_ADD ({@code opcode}); the original lands in {@code result}. */
    public static SendWorkRequest atomic(long wrId, int opcode, int flags, Sge result, long remoteAddr, int rkey,
            long compareAdd, long swap) {
        return new SendWorkRequest(wrId, opcode, flags, List.of(result), null, 0, remoteAddr, rkey, compareAdd, swap,
                null, 0, 0, 0, null);
    }

    /** BIND_MW: {@code bind}'s window bound (or a type 1 window unbound) when the WR's turn comes. */
    public static SendWorkRequest bindMw(long wrId, int flags, MwBind bind) {
        return new SendWorkRequest(wrId, WrOpcode.BIND_MW, flags, List.of(), null, 0, 0, 0, 0, 0, null, 0, 0, 0, bind);
    }

    /** LOCAL_INV of {@code rkey}. */
    public static SendWorkRequest localInvalidate(long wrId, int flags, int rkey) {
        return new SendWorkRequest(wrId, WrOpcode.LOCAL_INV, flags, List.of(), null, rkey, 0, 0, 0, 0, null, 0, 0, 0,
                null);
    }

    /** SEND_WITH_INV: the responder invalidates {@code rkey} as it takes the message. */
    public static SendWorkRequest sendWithInvalidate(long wrId, int flags, List<Sge> sges, int rkey) {
        return new SendWorkRequest(wrId, WrOpcode.SEND_WITH_INV, flags, sges, null, rkey, 0, 0, 0, 0, null, 0, 0, 0,
                null);
    }

    /** This request with {@link WrOpcode#FLAG_INLINE} and {@code data} as its payload. */
    public SendWorkRequest withInline(byte[] data) {
        return new SendWorkRequest(wrId, opcode, sendFlags | WrOpcode.FLAG_INLINE, sgList, data.clone(), immData,
                remoteAddr, rkey, compareAdd, swap, ah, remoteQpn, remoteQkey, xrcRemoteSrqNum, bind);
    }

    boolean isInline() {
        return (sendFlags & WrOpcode.FLAG_INLINE) != 0 && inlineData != null;
    }

    boolean hasImm() {
        return opcode == WrOpcode.SEND_WITH_IMM || opcode == WrOpcode.RDMA_WRITE_WITH_IMM;
    }

    long totalLength() {
        if (isInline()) {
            return inlineData.length;
        }
        long n = 0;
        for (Sge s : sgList) {
            n += s.unsignedLength();
        }
        return n;
    }
}
