package io.ibemu.emulator.mad;

import java.util.List;

/**
 * CACongestionSetting (IBA annex A10.4.3.8, ib_ca_cong_setting_t): port control and map, then an
 * 8-byte entry per SL.
 */
public record CaCongestionSetting(int portControl, int controlMap, List<Integer> cctiTimer,
                                  List<Integer> cctiIncrease, List<Integer> triggerThreshold,
                                  List<Integer> cctiMin) {
    /** One entry per service level. */
    public static final int SLS = 16;
    public static final Layout LAYOUT = Layout.of("CaCongestionSetting", 132,
            Field.of("portControl", "Port_Control", 0, 16),
            Field.of("controlMap", "Control_Map", 16, 16),
            Field.array("cctiTimer", "CCTI_Timer", 32, 16, SLS, 64),
            Field.array("cctiIncrease", "CCTI_Increase", 48, 8, SLS, 64),
            Field.array("triggerThreshold", "Trigger_Threshold", 56, 8, SLS, 64),
            Field.array("cctiMin", "CCTI_Min", 64, 8, SLS, 64));
    public static final RecordCodec<CaCongestionSetting> CODEC = RecordCodec.of(CaCongestionSetting.class, LAYOUT);

    public static CaCongestionSetting decode(byte[] b, int offset) {
        return CODEC.decode(b, offset);
    }

    public void encode(byte[] b, int offset) {
        CODEC.encode(this, b, offset);
    }
}
