package io.ibemu.emulator.fabric;

/** PortInfo PortPhysicalState (IBA 14.2.5.6, the physical layer's state machine, IBA 5.5). */
public enum PhysPortState {
    SLEEP(1), POLLING(2), DISABLED(3), PORT_CONFIGURATION_TRAINING(4), LINK_UP(5), LINK_ERROR_RECOVERY(6),
    PHY_TEST(7);

    private final int code;

    PhysPortState(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static PhysPortState ofCode(int code) {
        for (PhysPortState s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        throw new IllegalArgumentException("physical port state " + code);
    }
}
