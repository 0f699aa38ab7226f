package io.ibemu.emulator.topology;

import java.util.Locale;

/**
 * A link's lane speed and how PortInfo reports it (IBA 14.2.5.6): LinkSpeedActive 1/2/4 for
 * SDR/DDR/QDR; the extended speeds put LinkSpeedExtActive 1/2/4/8 (FDR/EDR/HDR/NDR) over a
 * LinkSpeedActive of QDR, as ibsim and real ports do. FDR10 is Mellanox's: PortInfo says QDR and
 * only the vendor ExtendedPortInfo attribute (0xFF90) tells FDR10.
 */
public enum LinkSpeed {
    SDR(1, 0, 2500), DDR(2, 0, 5000), QDR(4, 0, 10000), FDR10(4, 0, 10000),
    FDR(4, 1, 14000), EDR(4, 2, 25000), HDR(4, 4, 50000), NDR(4, 8, 100000);

    private final int linkSpeedActive;
    private final int linkSpeedExtActive;
    private final int laneRateMbps;

    LinkSpeed(int linkSpeedActive, int linkSpeedExtActive, int laneRateMbps) {
        this.linkSpeedActive = linkSpeedActive;
        this.linkSpeedExtActive = linkSpeedExtActive;
        this.laneRateMbps = laneRateMbps;
    }

    /** PortInfo LinkSpeedActive. */
    public int linkSpeedActive() {
        return linkSpeedActive;
    }

    /** PortInfo LinkSpeedExtActive (0 unless an extended speed). */
    public int linkSpeedExtActive() {
        return linkSpeedExtActive;
    }

    /** Mellanox ExtendedPortInfo LinkSpeedActive bit 0. */
    public boolean isMellanoxFdr10() {
        return this == FDR10;
    }

    public boolean isExtended() {
        return linkSpeedExtActive != 0;
    }

    /** Rate of one lane as the kernel's sysfs "rate" counts it (FDR 14, EDR 25 Gb/s, ...). */
    public int laneRateMbps() {
        return laneRateMbps;
    }

    /** "QDR" and the like, case-insensitive. */
    public static LinkSpeed parse(String name) {
        return valueOf(name.toUpperCase(Locale.ROOT));
    }

    /** From PortInfo LinkSpeedActive and LinkSpeedExtActive (an extended speed wins when set). */
    public static LinkSpeed ofPortInfo(int linkSpeedActive, int linkSpeedExtActive) {
        for (LinkSpeed s : values()) {
            if (linkSpeedExtActive != 0 ? s.linkSpeedExtActive == linkSpeedExtActive
                    : s.linkSpeedExtActive == 0 && s.linkSpeedActive == linkSpeedActive && s != FDR10) {
                return s;
            }
        }
        throw new IllegalArgumentException("link speed " + linkSpeedActive + "/" + linkSpeedExtActive);
    }
}
