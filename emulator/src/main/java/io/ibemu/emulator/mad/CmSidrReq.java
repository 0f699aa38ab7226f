package io.ibemu.emulator.mad;

/** SIDR_REQ, service ID resolution request (IBA vol 1 table 119, cm_sidr_req_msg). */
public record CmSidrReq(int requestId, int pkey, long serviceId, byte[] privateData) {
    public static final int PRIVATE_DATA_SIZE = 216;
    public static final Layout LAYOUT = Layout.of("CmSidrReq", 232,
            Field.of("requestId", "RequestID", 0, 32),
            Field.of("pkey", "PartitionKey", 32, 16),
            Field.of("serviceId", "ServiceID", 64, 64),
            Field.text("privateData", "PrivateData", 128, PRIVATE_DATA_SIZE * 8));
    public static final RecordCodec<CmSidrReq> CODEC = RecordCodec.of(CmSidrReq.class, LAYOUT);

    public CmSidrReq {
        privateData = privateData.clone();
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    public static CmSidrReq decode(byte[] mad) {
        return CODEC.decode(mad, CmAttribute.DATA_OFFSET);
    }

    public void encode(byte[] mad) {
        CODEC.encode(this, mad, CmAttribute.DATA_OFFSET);
    }
}
