package io.ibemu.emulator.mad;

/**
 * Mellanox ExtendedPortInfo (vendor SMP attribute 0xFF90, ib_types.h ib_mlnx_ext_port_info_t):
 * FDR10, which PortInfo cannot express, in bit 0 of each speed byte.
 */
public record MlnxExtPortInfo(int stateChangeEnable, int linkSpeedSupported, int linkSpeedEnabled,
                              int linkSpeedActive) {
    public static final Layout LAYOUT = Layout.of("MlnxExtPortInfo", 64,
            Field.of("stateChangeEnable", "StateChangeEnable", 24, 8),
            Field.of("linkSpeedSupported", "LinkSpeedSupported", 56, 8),
            Field.of("linkSpeedEnabled", "LinkSpeedEnabled", 88, 8),
            Field.of("linkSpeedActive", "LinkSpeedActive", 120, 8));
    public static final RecordCodec<MlnxExtPortInfo> CODEC = RecordCodec.of(MlnxExtPortInfo.class, LAYOUT);

    public static MlnxExtPortInfo decode(byte[] b, int offset) {
        return CODEC.decode(b, offset);
    }

    public void encode(byte[] b, int offset) {
        CODEC.encode(this, b, offset);
    }
}
