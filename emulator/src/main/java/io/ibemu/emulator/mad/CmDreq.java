package io.ibemu.emulator.mad;

/** DREQ, the request for communication release (IBA vol 1 table 112, cm_dreq_msg). */
public record CmDreq(int localCommId, int remoteCommId, int remoteQpn, byte[] privateData) {
    public static final int PRIVATE_DATA_SIZE = 220;
    public static final Layout LAYOUT = Layout.of("CmDreq", 232,
            Field.of("localCommId", "LocalCommID", 0, 32),
            Field.of("remoteCommId", "RemoteCommID", 32, 32),
            Field.of("remoteQpn", "RemoteQPN/EECN", 64, 24),
            Field.text("privateData", "PrivateData", 96, PRIVATE_DATA_SIZE * 8));
    public static final RecordCodec<CmDreq> CODEC = RecordCodec.of(CmDreq.class, LAYOUT);

    public CmDreq {
        privateData = privateData.clone();
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    public static CmDreq decode(byte[] mad) {
        return CODEC.decode(mad, CmAttribute.DATA_OFFSET);
    }

    public void encode(byte[] mad) {
        CODEC.encode(this, mad, CmAttribute.DATA_OFFSET);
    }
}
