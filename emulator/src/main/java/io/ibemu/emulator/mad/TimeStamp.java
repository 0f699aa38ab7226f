package io.ibemu.emulator.mad;

/** TimeStamp (IBA annex A10.4.3.10, ib_time_stamp_t): a free-running clock in 1.024 us units. */
public record TimeStamp(int timestamp) {
    public static final Layout LAYOUT = Layout.of("TimeStamp", 4,
            Field.of("timestamp", "Timestamp", 0, 32));
    public static final RecordCodec<TimeStamp> CODEC = RecordCodec.of(TimeStamp.class, LAYOUT);

    public static TimeStamp decode(byte[] b, int offset) {
        return CODEC.decode(b, offset);
    }

    public void encode(byte[] b, int offset) {
        CODEC.encode(this, b, offset);
    }
}
