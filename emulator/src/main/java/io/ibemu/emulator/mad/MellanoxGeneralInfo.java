package io.ibemu.emulator.mad;

/**
 * Mellanox GeneralInfo (vendor class 0x0A attribute 0x17, vendstat.c is4_general_info_t), from the
 * byte after the 8-byte vendor key: hardware, firmware, extended firmware and software versions.
 */
public record MellanoxGeneralInfo(int hwRevision, int deviceId, int uptime, int fwMajor, int fwMinor,
                                  int fwSubMinor, int fwBuildId, int fwMonth, int fwDay, int fwYear, int fwHour,
                                  String psid, int iniFileVersion, int extFwMajor, int extFwMinor,
                                  int extFwSubMinor, int swMajor, int swMinor, int swSubMinor) {
    public static final Layout LAYOUT = Layout.of("MellanoxGeneralInfo", 128,
            Field.of("hwRevision", "HwRevision", 0, 16),
            Field.of("deviceId", "HwDeviceId", 16, 16),
            Field.of("uptime", "HwUptime", 224, 32),
            Field.of("fwMajor", "FwMajor", 264, 8),
            Field.of("fwMinor", "FwMinor", 272, 8),
            Field.of("fwSubMinor", "FwSubMinor", 280, 8),
            Field.of("fwBuildId", "FwBuildId", 288, 32),
            Field.of("fwMonth", "FwMonth", 320, 8),
            Field.of("fwDay", "FwDay", 328, 8),
            Field.of("fwYear", "FwYear", 336, 16),
            Field.of("fwHour", "FwHour", 368, 16),
            Field.text("psid", "FwPsid", 384, 128),
            Field.of("iniFileVersion", "FwIniFileVersion", 512, 32),
            Field.of("extFwMajor", "ExtFwMajor", 544, 32),
            Field.of("extFwMinor", "ExtFwMinor", 576, 32),
            Field.of("extFwSubMinor", "ExtFwSubMinor", 608, 32),
            Field.of("swMajor", "SwMajor", 776, 8),
            Field.of("swMinor", "SwMinor", 784, 8),
            Field.of("swSubMinor", "SwSubMinor", 792, 8));
    public static final RecordCodec<MellanoxGeneralInfo> CODEC = RecordCodec.of(MellanoxGeneralInfo.class, LAYOUT);

    public static MellanoxGeneralInfo decode(byte[] b, int offset) {
        return CODEC.decode(b, offset);
    }

    public void encode(byte[] b, int offset) {
        CODEC.encode(this, b, offset);
    }
}
