package io.ibemu.emulator.cm;

import java.util.Optional;

/** The SIDR_REP Status field (IBA vol 1 table 120, {@code enum ib_cm_sidr_status}). */
public enum SidrStatus {
    SUCCESS(0),
    UNSUPPORTED(1),
    REJECT(2),
    NO_QP(3),
    REDIRECT(4),
    UNSUPPORTED_VERSION(5);

    private final int code;

    SidrStatus(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static Optional<SidrStatus> of(int code) {
        for (SidrStatus s : values()) {
            if (s.code == code) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }
}
