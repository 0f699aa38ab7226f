package io.ibemu.emulator.mad;

/** REP, the reply to a request for communication (IBA vol 1 table 110, cm_rep_msg). */
public record CmRep(int localCommId, int remoteCommId, int localQkey, int localQpn, int localEecn, int startingPsn,
        int responderResources, int initiatorDepth, int targetAckDelay, int failoverAccepted, boolean flowControl,
        int rnrRetryCount, boolean srq, long localCaGuid, byte[] privateData) {
    public static final int PRIVATE_DATA_SIZE = 196;
    public static final Layout LAYOUT = Layout.of("CmRep", 232,
            Field.of("localCommId", "LocalCommID", 0, 32),
            Field.of("remoteCommId", "RemoteCommID", 32, 32),
            Field.of("localQkey", "LocalQKey", 64, 32),
            Field.of("localQpn", "LocalQPN", 96, 24),
            Field.of("localEecn", "LocalEECN", 128, 24),
            Field.of("startingPsn", "StartingPSN", 160, 24),
            Field.of("responderResources", "ResponderResources", 192, 8),
            Field.of("initiatorDepth", "InitiatorDepth", 200, 8),
            Field.of("targetAckDelay", "TargetACKDelay", 208, 5),
            Field.of("failoverAccepted", "FailoverAccepted", 213, 2),
            Field.of("flowControl", "EndToEndFlowControl", 215, 1),
            Field.of("rnrRetryCount", "RNRRetryCount", 216, 3),
            Field.of("srq", "SRQ", 219, 1),
            Field.of("localCaGuid", "LocalCAGUID", 224, 64),
            Field.text("privateData", "PrivateData", 288, PRIVATE_DATA_SIZE * 8));
    public static final RecordCodec<CmRep> CODEC = RecordCodec.of(CmRep.class, LAYOUT);

    public CmRep {
        privateData = privateData.clone();
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    public static CmRep decode(byte[] mad) {
        return CODEC.decode(mad, CmAttribute.DATA_OFFSET);
    }

    public void encode(byte[] mad) {
        CODEC.encode(this, mad, CmAttribute.DATA_OFFSET);
    }
}
