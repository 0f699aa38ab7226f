package io.ibemu.emulator.hca;

/**
 * An address vector (ibv_ah_attr, IBA 11.2.2.1): destination LID, service level, source path
 * bits (low LMC bits added to the port's LID as SLID), static rate, local port, and a GRH when
 * {@code grh} is not null (is_global).
 */
public record AhAttributes(int dlid, int sl, int srcPathBits, int staticRate, int portNum, GlobalRoute grh) {
    public boolean isGlobal() {
        return grh != null;
    }

    /** LID-routed, no GRH. */
    public static AhAttributes lid(int dlid, int portNum) {
        return new AhAttributes(dlid, 0, 0, 0, portNum, null);
    }
}
