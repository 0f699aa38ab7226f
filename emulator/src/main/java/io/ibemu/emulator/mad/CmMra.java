package io.ibemu.emulator.mad;

/** MRA, message receipt acknowledgement (IBA vol 1 table 107, cm_mra_msg). */
public record CmMra(int localCommId, int remoteCommId, int messageMraed, int serviceTimeout, byte[] privateData) {
    public static final int PRIVATE_DATA_SIZE = 222;
    public static final Layout LAYOUT = Layout.of("CmMra", 232,
            Field.of("localCommId", "LocalCommID", 0, 32),
            Field.of("remoteCommId", "RemoteCommID", 32, 32),
            Field.of("messageMraed", "MessageMRAed", 64, 2),
            Field.of("serviceTimeout", "ServiceTimeout", 72, 5),
            Field.text("privateData", "PrivateData", 80, PRIVATE_DATA_SIZE * 8));
    public static final RecordCodec<CmMra> CODEC = RecordCodec.of(CmMra.class, LAYOUT);

    public CmMra {
        privateData = privateData.clone();
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    public static CmMra decode(byte[] mad) {
        return CODEC.decode(mad, CmAttribute.DATA_OFFSET);
    }

    public void encode(byte[] mad) {
        CODEC.encode(this, mad, CmAttribute.DATA_OFFSET);
    }
}
