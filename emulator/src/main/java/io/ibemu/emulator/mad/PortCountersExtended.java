package io.ibemu.emulator.mad;

/**
 * PortCountersExtended (IBA 16.1.4.11, ib_types.h ib_port_counters_ext_t): the 64-bit data and packet
 * counters; CounterSelect bit i clears the i-th counter in field order.
 */
public record PortCountersExtended(int portSelect, int counterSelect, int counterSelect2, long portXmitData,
                                   long portRcvData,
                                   long portXmitPkts, long portRcvPkts, long portUnicastXmitPkts,
                                   long portUnicastRcvPkts, long portMulticastXmitPkts, long portMulticastRcvPkts) {
    public static final Layout LAYOUT = Layout.of("PortCountersExtended", 72,
            Field.of("portSelect", "PortSelect", 8, 8),
            Field.of("counterSelect", "CounterSelect", 16, 16),
            Field.of("counterSelect2", "CounterSelect2", 32, 32),
            Field.of("portXmitData", "PortXmitData", 64, 64),
            Field.of("portRcvData", "PortRcvData", 128, 64),
            Field.of("portXmitPkts", "PortXmitPkts", 192, 64),
            Field.of("portRcvPkts", "PortRcvPkts", 256, 64),
            Field.of("portUnicastXmitPkts", "PortUnicastXmitPkts", 320, 64),
            Field.of("portUnicastRcvPkts", "PortUnicastRcvPkts", 384, 64),
            Field.of("portMulticastXmitPkts", "PortMulticastXmitPkts", 448, 64),
            Field.of("portMulticastRcvPkts", "PortMulticastRcvPkts", 512, 64));
    public static final RecordCodec<PortCountersExtended> CODEC = RecordCodec.of(PortCountersExtended.class, LAYOUT);

    public static PortCountersExtended decode(byte[] b, int offset) {
        return CODEC.decode(b, offset);
    }

    public void encode(byte[] b, int offset) {
        CODEC.encode(this, b, offset);
    }
}
