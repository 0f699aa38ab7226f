package io.ibemu.emulator.mad;

import java.util.List;

/**
 * SwitchCongestionSetting (IBA annex A10.4.3.6, ib_sw_cong_setting_t): port masks as 32 bytes,
 * port 0 in the last byte's low bit.
 */
public record SwitchCongestionSetting(int controlMap, List<Integer> victimMask, List<Integer> creditMask,
                                      int threshold, int packetSize, int csThreshold, int csReturnDelay,
                                      int markingRate) {
    public static final Layout LAYOUT = Layout.of("SwitchCongestionSetting", 76,
            Field.of("controlMap", "Control_Map", 0, 32),
            Field.array("victimMask", "Victim_Mask", 32, 8, 32, 8),
            Field.array("creditMask", "Credit_Mask", 288, 8, 32, 8),
            Field.of("threshold", "Threshold", 544, 4),
            Field.of("packetSize", "Packet_Size", 552, 8),
            Field.of("csThreshold", "CS_Threshold", 560, 4),
            Field.of("csReturnDelay", "CS_ReturnDelay", 576, 16),
            Field.of("markingRate", "Marking_Rate", 592, 16));
    public static final RecordCodec<SwitchCongestionSetting> CODEC =
            RecordCodec.of(SwitchCongestionSetting.class, LAYOUT);

    public static SwitchCongestionSetting decode(byte[] b, int offset) {
        return CODEC.decode(b, offset);
    }

    public void encode(byte[] b, int offset) {
        CODEC.encode(this, b, offset);
    }
}
