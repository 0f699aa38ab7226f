package io.ibemu.emulator.sysfs;

import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.mad.PortCounters;
import io.ibemu.sysfstree.SysDir;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.ToLongFunction;

/** ports/N/counters: the kernel's pma_table, each file one PortCounters field, read live. */
final class PortCounterFiles {
    private static final Map<String, ToLongFunction<PortCounters>> FILES = new LinkedHashMap<>();

    static {
        FILES.put("symbol_error", PortCounters::symbolErrorCounter);
        FILES.put("link_error_recovery", PortCounters::linkErrorRecoveryCounter);
        FILES.put("link_downed", PortCounters::linkDownedCounter);
        FILES.put("port_rcv_errors", PortCounters::portRcvErrors);
        FILES.put("port_rcv_remote_physical_errors", PortCounters::portRcvRemotePhysicalErrors);
        FILES.put("port_rcv_switch_relay_errors", PortCounters::portRcvSwitchRelayErrors);
        FILES.put("port_xmit_discards", PortCounters::portXmitDiscards);
        FILES.put("port_xmit_constraint_errors", PortCounters::portXmitConstraintErrors);
        FILES.put("port_rcv_constraint_errors", PortCounters::portRcvConstraintErrors);
        FILES.put("local_link_integrity_errors", PortCounters::localLinkIntegrityErrors);
        FILES.put("excessive_buffer_overrun_errors", PortCounters::excessiveBufferOverrunErrors);
        FILES.put("VL15_dropped", PortCounters::vl15Dropped);
        FILES.put("port_xmit_data", PortCounters::portXmitData);
        FILES.put("port_rcv_data", PortCounters::portRcvData);
        FILES.put("port_xmit_packets", PortCounters::portXmitPkts);
        FILES.put("port_rcv_packets", PortCounters::portRcvPkts);
        FILES.put("port_xmit_wait", PortCounters::portXmitWait);
    }

    private PortCounterFiles() {
    }

    static void add(SysDir dir, Port port) {
        FILES.forEach((name, field) -> dir.attribute(name, () -> field.applyAsLong(port.counters()) + "\n"));
    }
}
