package io.ibemu.emulator.mad;

/** DREP, the reply to a request for communication release (IBA vol 1 table 113, cm_drep_msg). */
public record CmDrep(int localCommId, int remoteCommId, byte[] privateData) {
    public static final int PRIVATE_DATA_SIZE = 224;
    public static final Layout LAYOUT = Layout.of("CmDrep", 232,
            Field.of("localCommId", "LocalCommID", 0, 32),
            Field.of("remoteCommId", "RemoteCommID", 32, 32),
            Field.text("privateData", "PrivateData", 64, PRIVATE_DATA_SIZE * 8));
    public static final RecordCodec<CmDrep> CODEC = RecordCodec.of(CmDrep.class, LAYOUT);

    public CmDrep {
        privateData = privateData.clone();
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    public static CmDrep decode(byte[] mad) {
        return CODEC.decode(mad, CmAttribute.DATA_OFFSET);
    }

    public void encode(byte[] mad) {
        CODEC.encode(this, mad, CmAttribute.DATA_OFFSET);
    }
}
