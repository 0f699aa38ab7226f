package io.ibemu.emulator.mad;

import java.util.List;

/**
 * CongestionLog of a CA (LogType 2; IBA annex A10.4.3.5 with libibmad's word-aligned
 * CurrentTimeStamp): 13 events of 16 bytes after a 12-byte head.
 */
public record CaCongestionLog(int logType, int congestionFlags, int thresholdEventCounter,
                              int thresholdCongestionEventMap, int currentTimeStamp, List<Integer> localQp,
                              List<Integer> sl, List<Integer> serviceType, List<Integer> remoteQp,
                              List<Integer> localLid, List<Integer> remoteLid, List<Integer> timestamp) {
    public static final int LOG_TYPE = 2;
    /** Events the log holds: 13 fit once the errata widened an event to 16 bytes (ibccquery.c). */
    public static final int EVENTS = 13;
    public static final Layout LAYOUT = Layout.of("CaCongestionLog", 220,
            Field.of("logType", "LogType", 0, 8),
            Field.of("congestionFlags", "CongestionFlags", 8, 8),
            Field.of("thresholdEventCounter", "ThresholdEventCounter", 16, 16),
            Field.of("thresholdCongestionEventMap", "ThresholdCongestionEventMap", 32, 16),
            Field.of("currentTimeStamp", "CurrentTimeStamp", 64, 32),
            Field.array("localQp", "Local_QP_CN_Entry", 96, 24, EVENTS, 128),
            Field.array("sl", "SL_CN_Entry", 120, 4, EVENTS, 128),
            Field.array("serviceType", "Service_Type_CN_Entry", 124, 4, EVENTS, 128),
            Field.array("remoteQp", "Remote_QP_Number_CN_Entry", 128, 24, EVENTS, 128),
            Field.array("localLid", "Local_LID_CN", 160, 16, EVENTS, 128),
            Field.array("remoteLid", "Remote_LID_CN_Entry", 176, 16, EVENTS, 128),
            Field.array("timestamp", "Timestamp_CN_Entry", 192, 32, EVENTS, 128));
    public static final RecordCodec<CaCongestionLog> CODEC = RecordCodec.of(CaCongestionLog.class, LAYOUT);

    public static CaCongestionLog decode(byte[] b, int offset) {
        return CODEC.decode(b, offset);
    }

    public void encode(byte[] b, int offset) {
        CODEC.encode(this, b, offset);
    }
}
