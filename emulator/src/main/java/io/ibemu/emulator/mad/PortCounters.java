package io.ibemu.emulator.mad;

/**
 * PortCounters (IBA 16.1.3.5, ib_types.h ib_port_counters_t): 44 bytes at PerfMgmt data offset 64.
 * Counters saturate at their width; CounterSelect bit i clears the i-th counter in field order,
 * CounterSelect2 bit 0 PortXmitWait.
 */
public record PortCounters(int portSelect, int counterSelect, int symbolErrorCounter, int linkErrorRecoveryCounter,
                           int linkDownedCounter, int portRcvErrors, int portRcvRemotePhysicalErrors,
                           int portRcvSwitchRelayErrors, int portXmitDiscards, int portXmitConstraintErrors,
                           int portRcvConstraintErrors, int counterSelect2, int localLinkIntegrityErrors,
                           int excessiveBufferOverrunErrors, int qp1Dropped, int vl15Dropped, long portXmitData,
                           long portRcvData, long portXmitPkts, long portRcvPkts, long portXmitWait) {
    public static final Layout LAYOUT = Layout.of("PortCounters", 44,
            Field.of("portSelect", "PortSelect", 8, 8),
            Field.of("counterSelect", "CounterSelect", 16, 16),
            Field.of("symbolErrorCounter", "SymbolErrorCounter", 32, 16),
            Field.of("linkErrorRecoveryCounter", "LinkErrorRecoveryCounter", 48, 8),
            Field.of("linkDownedCounter", "LinkDownedCounter", 56, 8),
            Field.of("portRcvErrors", "PortRcvErrors", 64, 16),
            Field.of("portRcvRemotePhysicalErrors", "PortRcvRemotePhysicalErrors", 80, 16),
            Field.of("portRcvSwitchRelayErrors", "PortRcvSwitchRelayErrors", 96, 16),
            Field.of("portXmitDiscards", "PortXmitDiscards", 112, 16),
            Field.of("portXmitConstraintErrors", "PortXmitConstraintErrors", 128, 8),
            Field.of("portRcvConstraintErrors", "PortRcvConstraintErrors", 136, 8),
            Field.of("counterSelect2", "CounterSelect2", 144, 8),
            Field.of("localLinkIntegrityErrors", "LocalLinkIntegrityErrors", 152, 4),
            Field.of("excessiveBufferOverrunErrors", "ExcessiveBufferOverrunErrors", 156, 4),
            Field.of("qp1Dropped", "QP1Dropped", 160, 16),
            Field.of("vl15Dropped", "VL15Dropped", 176, 16),
            Field.of("portXmitData", "PortXmitData", 192, 32),
            Field.of("portRcvData", "PortRcvData", 224, 32),
            Field.of("portXmitPkts", "PortXmitPkts", 256, 32),
            Field.of("portRcvPkts", "PortRcvPkts", 288, 32),
            Field.of("portXmitWait", "PortXmitWait", 320, 32));
    public static final RecordCodec<PortCounters> CODEC = RecordCodec.of(PortCounters.class, LAYOUT);

    public static PortCounters decode(byte[] b, int offset) {
        return CODEC.decode(b, offset);
    }

    public void encode(byte[] b, int offset) {
        CODEC.encode(this, b, offset);
    }
}
