package io.ibemu.emulator.mad;

/**
 * Mellanox vendor class 0x0A (a range-1 vendor class, no OUI) attribute ids as vendstat.c names
 * them, and where their data lies: after the header, an 8-byte vendor key, then the attribute.
 */
public final class MellanoxAttribute {
    public static final int VENDOR_CLASS = 0x0A;
    public static final int CLASS_PORT_INFO = 0x0001;
    public static final int GENERAL_INFO = 0x0017;
    public static final int CONFIG_SPACE_ACCESS = 0x0050;
    public static final int CLASS_VERSION = 1;
    public static final int DATA_OFFSET = 32;

    /** PCI/IEEE vendor ids whose devices run Mellanox firmware: Mellanox (NVIDIA) and Bull. */
    public static final int MELLANOX_VENDOR_ID = 0x0002C9;
    public static final int BULL_VENDOR_ID = 0x00119F;

    private MellanoxAttribute() {
    }

    public static boolean isMellanoxFirmware(int vendorId) {
        return vendorId == MELLANOX_VENDOR_ID || vendorId == BULL_VENDOR_ID;
    }
}
