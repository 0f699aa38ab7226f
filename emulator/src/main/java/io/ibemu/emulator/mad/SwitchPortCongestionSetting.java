package io.ibemu.emulator.mad;

import java.util.List;

/**
 * SwitchPortCongestionSetting (IBA annex A10.4.3.7, ib_sw_port_cong_setting_t): one block of 32
 * ports' 4-byte elements; the attribute modifier picks the block.
 */
public record SwitchPortCongestionSetting(List<Integer> valid, List<Integer> controlType, List<Integer> threshold,
                                          List<Integer> packetSize, List<Integer> markingRate) {
    public static final int PER_BLOCK = 32;
    public static final Layout LAYOUT = Layout.of("SwitchPortCongestionSetting", 128,
            Field.array("valid", "Valid", 0, 1, PER_BLOCK, 32),
            Field.array("controlType", "Control_Type", 1, 1, PER_BLOCK, 32),
            Field.array("threshold", "Threshold", 4, 4, PER_BLOCK, 32),
            Field.array("packetSize", "Packet_Size", 8, 8, PER_BLOCK, 32),
            Field.array("markingRate", "Cong_Parm_Marking_Rate", 16, 16, PER_BLOCK, 32));
    public static final RecordCodec<SwitchPortCongestionSetting> CODEC =
            RecordCodec.of(SwitchPortCongestionSetting.class, LAYOUT);

    public static SwitchPortCongestionSetting decode(byte[] b, int offset) {
        return CODEC.decode(b, offset);
    }

    public void encode(byte[] b, int offset) {
        CODEC.encode(this, b, offset);
    }
}
