package io.ibemu.emulator.fabric;

/** PortInfo PortState (IBA 14.2.5.6, the link layer's logical state, IBA 7.2). */
public enum PortState {
    DOWN(1), INIT(2), ARMED(3), ACTIVE(4), ACTIVE_DEFER(5);

    private final int code;

    PortState(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static PortState ofCode(int code) {
        for (PortState s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        throw new IllegalArgumentException("port state " + code);
    }
}
