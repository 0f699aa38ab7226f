package io.ibemu.emulator.mad;

/** RTU, ready to use (IBA vol 1 table 111, cm_rtu_msg). */
public record CmRtu(int localCommId, int remoteCommId, byte[] privateData) {
    public static final int PRIVATE_DATA_SIZE = 224;
    public static final Layout LAYOUT = Layout.of("CmRtu", 232,
            Field.of("localCommId", "LocalCommID", 0, 32),
            Field.of("remoteCommId", "RemoteCommID", 32, 32),
            Field.text("privateData", "PrivateData", 64, PRIVATE_DATA_SIZE * 8));
    public static final RecordCodec<CmRtu> CODEC = RecordCodec.of(CmRtu.class, LAYOUT);

    public CmRtu {
        privateData = privateData.clone();
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    public static CmRtu decode(byte[] mad) {
        return CODEC.decode(mad, CmAttribute.DATA_OFFSET);
    }

    public void encode(byte[] mad) {
        CODEC.encode(this, mad, CmAttribute.DATA_OFFSET);
    }
}
