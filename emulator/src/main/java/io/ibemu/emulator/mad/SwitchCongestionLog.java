package io.ibemu.emulator.mad;

import java.util.List;

/**
 * CongestionLog of a switch (LogType 1; IBA annex A10.4.3.5, ib_cong_log_t log_sw): at the CC
 * MAD's log data (byte 32), 15 events of 12 bytes after a 40-byte head.
 */
public record SwitchCongestionLog(int logType, int congestionFlags, int logEventsCounter, int currentTimeStamp,
                                  List<Integer> portMap, List<Integer> slid, List<Integer> dlid, List<Integer> sl,
                                  List<Integer> timestamp) {
    public static final int LOG_TYPE = 1;
    /** Events the log holds, newest last. */
    public static final int EVENTS = 15;
    public static final Layout LAYOUT = Layout.of("SwitchCongestionLog", 220,
            Field.of("logType", "LogType", 0, 8),
            Field.of("congestionFlags", "CongestionFlags", 8, 8),
            Field.of("logEventsCounter", "LogEventsCounter", 16, 16),
            Field.of("currentTimeStamp", "CurrentTimeStamp", 32, 32),
            Field.array("portMap", "PortMap", 64, 8, 32, 8),
            Field.array("slid", "SLID", 320, 16, EVENTS, 96),
            Field.array("dlid", "DLID", 336, 16, EVENTS, 96),
            Field.array("sl", "SL", 352, 4, EVENTS, 96),
            Field.array("timestamp", "Timestamp", 384, 32, EVENTS, 96));
    public static final RecordCodec<SwitchCongestionLog> CODEC = RecordCodec.of(SwitchCongestionLog.class, LAYOUT);

    public static SwitchCongestionLog decode(byte[] b, int offset) {
        return CODEC.decode(b, offset);
    }

    public void encode(byte[] b, int offset) {
        CODEC.encode(this, b, offset);
    }
}
