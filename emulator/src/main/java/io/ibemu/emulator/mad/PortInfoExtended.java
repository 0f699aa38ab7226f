package io.ibemu.emulator.mad;

/**
 * PortInfoExtended (IBA 14.2.5.21, ib_port_info_ext_t; NDR from libibmad's fields.c): the FEC
 * modes per speed generation.
 */
public record PortInfoExtended(int capabilityMask, int fecModeActive, int fdrFecModeSupported,
                               int fdrFecModeEnabled, int edrFecModeSupported, int edrFecModeEnabled,
                               int hdrFecModeSupported, int hdrFecModeEnabled, int ndrFecModeSupported,
                               int ndrFecModeEnabled) {
    public static final Layout LAYOUT = Layout.of("PortInfoExtended", 64,
            Field.of("capabilityMask", "CapMask", 0, 32),
            Field.of("fecModeActive", "FECModeActive", 32, 16),
            Field.of("fdrFecModeSupported", "FDRFECModeSupported", 48, 16),
            Field.of("fdrFecModeEnabled", "FDRFECModeEnabled", 64, 16),
            Field.of("edrFecModeSupported", "EDRFECModeSupported", 80, 16),
            Field.of("edrFecModeEnabled", "EDRFECModeEnabled", 96, 16),
            Field.of("hdrFecModeSupported", "HDRFECModeSupported", 112, 16),
            Field.of("hdrFecModeEnabled", "HDRFECModeEnabled", 128, 16),
            Field.of("ndrFecModeSupported", "NDRFECModeSupported", 144, 16),
            Field.of("ndrFecModeEnabled", "NDRFECModeEnabled", 160, 16));
    public static final RecordCodec<PortInfoExtended> CODEC = RecordCodec.of(PortInfoExtended.class, LAYOUT);

    public static PortInfoExtended decode(byte[] b, int offset) {
        return CODEC.decode(b, offset);
    }

    public void encode(byte[] b, int offset) {
        CODEC.encode(this, b, offset);
    }
}
