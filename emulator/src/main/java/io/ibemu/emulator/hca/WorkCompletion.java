package io.ibemu.emulator.hca;

/**
 * One completion (ibv_wc / ib_uverbs_wc): {@code status} is a {@link WcStatus} value, {@code
 * opcode} a {@link WcOpcode} value (meaningful on success only, as the verbs spec says), {@code
 * wcFlags} {@link WcOpcode#FLAG_GRH} / {@link WcOpcode#FLAG_WITH_IMM}. {@code immData} is in host
 * order as the requester gave it (the ABI layer puts it on the wire in network order). For
 * receives: source QP, SLID, SL, P_Key index and DLID path bits of the packet.
 */
public record WorkCompletion(long wrId, int status, int opcode, int vendorErr, int byteLen, int immData, int qpNum,
        int srcQp, int wcFlags, int pkeyIndex, int slid, int sl, int dlidPathBits) {

    /** A completion with only an id, a status and a QP (flushes and requester errors). */
    static WorkCompletion of(long wrId, int status, int opcode, int qpNum) {
        return new WorkCompletion(wrId, status, opcode, 0, 0, 0, qpNum, 0, 0, 0, 0, 0, 0);
    }

    public boolean isSuccess() {
        return status == WcStatus.SUCCESS;
    }
}
