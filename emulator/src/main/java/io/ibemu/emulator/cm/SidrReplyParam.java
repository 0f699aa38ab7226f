package io.ibemu.emulator.cm;

/** {@code struct ib_cm_sidr_rep_param}: info at most 72 bytes, private data at most 136. */
public record SidrReplyParam(int qpNum, int qkey, SidrStatus status, byte[] info, byte[] privateData) {
    public SidrReplyParam {
        info = info == null ? new byte[0] : info.clone();
        privateData = privateData == null ? new byte[0] : privateData.clone();
    }

    @Override
    public byte[] info() {
        return info.clone();
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }
}
