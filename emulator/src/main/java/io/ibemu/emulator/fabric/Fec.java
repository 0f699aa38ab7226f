package io.ibemu.emulator.fabric;

import io.ibemu.emulator.topology.LinkSpeed;

/**
 * The forward error correction modes of each speed generation PortInfoExtended describes
 * (IBA 14.2.5.21): a mask of supported modes per generation, bit n for FECModeActive value n
 * (0 no FEC, 1 Firecode, 2 RS-FEC, 3 low-latency RS-FEC). A link runs the highest mode both ends
 * enable for the speed it trained to.
 */
enum Fec {
    FDR(LinkSpeed.FDR, 0x3), EDR(LinkSpeed.EDR, 0xF), HDR(LinkSpeed.HDR, 0xD), NDR(LinkSpeed.NDR, 0xC);

    static final int NO_FEC = 0;

    private final LinkSpeed speed;
    private final int supported;

    Fec(LinkSpeed speed, int supported) {
        this.speed = speed;
        this.supported = supported;
    }

    int supported() {
        return supported;
    }

    /** The speed of the generation. */
    LinkSpeed speed() {
        return speed;
    }

    /** The generation of a speed, null below FDR (no FEC there). */
    static Fec of(LinkSpeed s) {
        for (Fec f : values()) {
            if (f.speed == s) {
                return f;
            }
        }
        return null;
    }

    /** The mode a link of this generation runs with these enabled masks at its two ends. */
    int negotiate(int enabledHere, int enabledThere) {
        int common = enabledHere & enabledThere & supported;
        return common == 0 ? NO_FEC : 31 - Integer.numberOfLeadingZeros(common);
    }
}
