package io.ibemu.emulator.mad;

/** REJ, reject (IBA vol 1 table 108, cm_rej_msg): the reason and its additional rejection information. */
public record CmRej(int localCommId, int remoteCommId, int messageRejected, int rejectedInfoLength, int reason,
        byte[] ari, byte[] privateData) {
    public static final int ARI_SIZE = 72;
    public static final int PRIVATE_DATA_SIZE = 148;
    public static final Layout LAYOUT = Layout.of("CmRej", 232,
            Field.of("localCommId", "LocalCommID", 0, 32),
            Field.of("remoteCommId", "RemoteCommID", 32, 32),
            Field.of("messageRejected", "MessageRejected", 64, 2),
            Field.of("rejectedInfoLength", "RejectedInfoLength", 72, 7),
            Field.of("reason", "Reason", 80, 16),
            Field.text("ari", "ARI", 96, ARI_SIZE * 8),
            Field.text("privateData", "PrivateData", 672, PRIVATE_DATA_SIZE * 8));
    public static final RecordCodec<CmRej> CODEC = RecordCodec.of(CmRej.class, LAYOUT);

    public CmRej {
        ari = ari.clone();
        privateData = privateData.clone();
    }

    @Override
    public byte[] ari() {
        return ari.clone();
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    public static CmRej decode(byte[] mad) {
        return CODEC.decode(mad, CmAttribute.DATA_OFFSET);
    }

    public void encode(byte[] mad) {
        CODEC.encode(this, mad, CmAttribute.DATA_OFFSET);
    }
}
