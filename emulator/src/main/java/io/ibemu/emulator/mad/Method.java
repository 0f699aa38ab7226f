package io.ibemu.emulator.mad;

/** MAD method codes (IBA 13.4.5, ib_types.h IB_MAD_METHOD_*); bit 7 marks a response. */
public final class Method {
    public static final int GET = 0x01;
    public static final int SET = 0x02;
    public static final int SEND = 0x03;
    public static final int TRAP = 0x05;
    public static final int REPORT = 0x06;
    public static final int TRAP_REPRESS = 0x07;
    public static final int GET_TABLE = 0x12;
    public static final int GET_TRACE_TABLE = 0x13;
    public static final int GET_MULTI = 0x14;
    public static final int DELETE = 0x15;
    public static final int RESPONSE = 0x80;
    public static final int GET_RESP = 0x81;
    public static final int REPORT_RESP = 0x86;
    public static final int GET_TABLE_RESP = 0x92;
    public static final int GET_MULTI_RESP = 0x94;
    public static final int DELETE_RESP = 0x95;

    private Method() {
    }

    public static boolean isResponse(int method) {
        return (method & RESPONSE) != 0;
    }
}
