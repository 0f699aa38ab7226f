package io.ibemu.emulator.mad;

/** MAD status codes (IBA 13.4.7, ib_types.h IB_MAD_STATUS_*). */
public final class MadStatus {
    public static final int SUCCESS = 0x0000;
    public static final int BUSY = 0x0001;
    public static final int REDIRECT = 0x0002;
    public static final int BAD_VERSION = 0x0004;
    public static final int UNSUPPORTED_METHOD = 0x0008;
    public static final int UNSUPPORTED_METHOD_ATTRIBUTE = 0x000C;
    public static final int INVALID_FIELD = 0x001C;
    /** Directed-route SMPs carry the D bit in the status word's top bit (IBA 14.2.1.2). */
    public static final int DIRECTION = 0x8000;

    private MadStatus() {
    }
}
