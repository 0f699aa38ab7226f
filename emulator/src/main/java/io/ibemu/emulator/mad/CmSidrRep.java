package io.ibemu.emulator.mad;

/** SIDR_REP, service ID resolution response (IBA vol 1 table 120, cm_sidr_rep_msg). */
public record CmSidrRep(int requestId, int status, int additionalInfoLength, int qpn, long serviceId, int qkey,
        byte[] additionalInfo, byte[] privateData) {
    public static final int INFO_SIZE = 72;
    public static final int PRIVATE_DATA_SIZE = 136;
    public static final Layout LAYOUT = Layout.of("CmSidrRep", 232,
            Field.of("requestId", "RequestID", 0, 32),
            Field.of("status", "Status", 32, 8),
            Field.of("additionalInfoLength", "AdditionalInformationLength", 40, 8),
            Field.of("qpn", "QPN", 64, 24),
            Field.of("serviceId", "ServiceID", 96, 64),
            Field.of("qkey", "QKey", 160, 32),
            Field.text("additionalInfo", "AdditionalInformation", 192, INFO_SIZE * 8),
            Field.text("privateData", "PrivateData", 768, PRIVATE_DATA_SIZE * 8));
    public static final RecordCodec<CmSidrRep> CODEC = RecordCodec.of(CmSidrRep.class, LAYOUT);

    public CmSidrRep {
        additionalInfo = additionalInfo.clone();
        privateData = privateData.clone();
    }

    @Override
    public byte[] additionalInfo() {
        return additionalInfo.clone();
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    public static CmSidrRep decode(byte[] mad) {
        return CODEC.decode(mad, CmAttribute.DATA_OFFSET);
    }

    public void encode(byte[] mad) {
        CODEC.encode(this, mad, CmAttribute.DATA_OFFSET);
    }
}
