package io.ibemu.emulator.cm;

/** {@code struct ib_cm_rep_param}: what {@link CmId#sendRep} puts in the REP; private data at most 196 bytes. */
public record CmReplyParam(int qpNum, int startingPsn, byte[] privateData, int responderResources,
        int initiatorDepth, int failoverAccepted, boolean flowControl, int rnrRetryCount, boolean srq) {
    public CmReplyParam {
        privateData = privateData == null ? new byte[0] : privateData.clone();
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }
}
