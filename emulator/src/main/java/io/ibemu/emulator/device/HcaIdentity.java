package io.ibemu.emulator.device;

/**
 * What a local HCA's driver reports about itself beyond the SMA's NodeInfo: the device name
 * and the sysfs attributes fw_ver, hca_type, hw_rev, board_id.
 */
public record HcaIdentity(String name, String fwVersion, String hcaType, String hwRevision, String boardId) {

    /** Defaults for the n-th local HCA: a QLogic QLE7340-like device, as ipathverbs binds to. */
    public static HcaIdentity defaults(int index) {
        return new HcaIdentity("ibemu" + index, "1.0.0", "InfiniPath_QLE7340", "2", "ibemu emulated HCA");
    }

    public HcaIdentity with(String key, String value) {
        return switch (key) {
            case "name" -> new HcaIdentity(value, fwVersion, hcaType, hwRevision, boardId);
            case "fw_ver" -> new HcaIdentity(name, value, hcaType, hwRevision, boardId);
            case "hca_type" -> new HcaIdentity(name, fwVersion, value, hwRevision, boardId);
            case "hw_rev" -> new HcaIdentity(name, fwVersion, hcaType, value, boardId);
            case "board_id" -> new HcaIdentity(name, fwVersion, hcaType, hwRevision, value);
            default -> throw new IllegalArgumentException("unknown identity key '" + key
                    + "' (known: name, fw_ver, hca_type, hw_rev, board_id)");
        };
    }
}
