package io.ibemu.emulator.hca;

/** {@code enum ib_srq_type}: a plain SRQ, an XRC SRQ (with XRC domain and CQ), tag matching (unsupported). */
public enum SrqType {
    BASIC, XRC, TAG_MATCHING;

    public int code() {
        return ordinal();
    }
}
