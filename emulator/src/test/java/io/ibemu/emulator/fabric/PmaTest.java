package io.ibemu.emulator.fabric;

import static io.ibemu.emulator.fabric.RequestMads.answer;
import static io.ibemu.emulator.fabric.RequestMads.perf;
import static io.ibemu.emulator.fabric.RequestMads.process;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ibemu.emulator.mad.Bits;
import io.ibemu.emulator.mad.Mad;
import io.ibemu.emulator.mad.MadStatus;
import io.ibemu.emulator.mad.Method;
import io.ibemu.emulator.mad.PerfAttribute;
import io.ibemu.emulator.mad.PortCounters;
import io.ibemu.emulator.mad.PortCountersExtended;
import io.ibemu.emulator.topology.DefaultFabric;
import org.junit.jupiter.api.Test;

/** PerfMgmt MADs as bytes: the attribute at byte 64, PortSelect at 65, CounterSelect at 66. */
class PmaTest {
    private static final int D = Mad.PERF_DATA_OFFSET;
    private final Fabric fabric = Fabric.of(DefaultFabric.topology());
    private final Node local = fabric.node("local").orElseThrow();
    private final Node sw = fabric.node("switch").orElseThrow();

    private static byte[] counters(int method, int portSelect, int counterSelect, int counterSelect2) {
        byte[] mad = perf(method, PerfAttribute.PORT_COUNTERS, 0);
        mad[D + 1] = (byte) portSelect;
        mad[D + 2] = (byte) (counterSelect >> 8);
        mad[D + 3] = (byte) counterSelect;
        mad[D + 18] = (byte) counterSelect2;
        return mad;
    }

    private static byte[] extended(int method, int portSelect, int counterSelect) {
        byte[] mad = perf(method, PerfAttribute.PORT_COUNTERS_EXTENDED, 0);
        mad[D + 1] = (byte) portSelect;
        mad[D + 3] = (byte) counterSelect;
        return mad;
    }

    @Test
    void classPortInfo() {
        byte[] r = answer(local, 1, perf(Method.GET, PerfAttribute.CLASS_PORT_INFO, 0));
        assertEquals(Method.GET_RESP, Mad.method(r));
        assertEquals(0, Mad.status(r));
        assertEquals(1, r[D]);
        assertEquals(1, r[D + 1]);
        assertEquals(PerfAttribute.CAP_EXTENDED_WIDTH | PerfAttribute.CAP_PORT_XMIT_WAIT, Bits.get(r, D + 2, 0, 16));
        assertEquals(18, r[D + 7] & 0x1F, "RespTimeValue");
        r = answer(sw, 1, perf(Method.GET, PerfAttribute.CLASS_PORT_INFO, 0));
        assertTrue((Bits.get(r, D + 2, 0, 16) & PerfAttribute.CAP_ALL_PORT_SELECT) != 0);
        assertEquals(MadStatus.UNSUPPORTED_METHOD_ATTRIBUTE,
                Mad.status(answer(local, 1, perf(Method.SET, PerfAttribute.CLASS_PORT_INFO, 0))));
        assertEquals(MadStatus.INVALID_FIELD,
                Mad.status(answer(local, 1, perf(Method.GET, PerfAttribute.CLASS_PORT_INFO, 1))));
    }

    @Test
    void portCountersCountAndSaturate() {
        Port p = local.port(1);
        for (int i = 0; i < 3; i++) {
            p.countTransmit(256);
        }
        p.countReceive(100);
        p.count(Port.Counter.SYMBOL_ERRORS, 70000);
        p.count(Port.Counter.LOCAL_LINK_INTEGRITY_ERRORS, 3);
        byte[] r = answer(local, 1, counters(Method.GET, 1, 0, 0));
        assertEquals(0, Mad.status(r));
        assertEquals(1, r[D + 1], "PortSelect echoed");
        assertEquals(0xFFFF, Bits.get(r, D + 4, 0, 16), "SymbolErrorCounter saturates at 16 bits");
        assertEquals(0x30, r[D + 19] & 0xF0, "LocalLinkIntegrityErrors in the high nibble of 19");
        assertEquals(192, Bits.get(r, D + 24, 0, 32), "PortXmitData in 4-octet words");
        assertEquals(25, Bits.get(r, D + 28, 0, 32));
        assertEquals(3, Bits.get(r, D + 32, 0, 32));
        assertEquals(1, Bits.get(r, D + 36, 0, 32));

        p.count(Port.Counter.XMIT_DATA, 1L << 33);
        assertEquals(0xFFFFFFFFL, PortCounters.decode(answer(local, 1, counters(Method.GET, 1, 0, 0)), D)
                .portXmitData());
        PortCountersExtended e = PortCountersExtended.decode(answer(local, 1, extended(Method.GET, 1, 0)), D);
        assertEquals((1L << 33) + 192, e.portXmitData(), "64 bits in PortCountersExtended");
        assertEquals(3, e.portUnicastXmitPkts());
    }

    @Test
    void setClearsTheSelectedCounters() {
        Port p = local.port(1);
        p.countTransmit(400);
        p.countReceive(400);
        p.count(Port.Counter.XMIT_WAIT, 9);
        // CounterSelect bit 12 PortXmitData only
        PortCounters c = PortCounters.decode(answer(local, 1, counters(Method.SET, 1, 1 << 12, 0)), D);
        assertEquals(0, c.portXmitData());
        assertEquals(1, c.portXmitPkts());
        assertEquals(100, c.portRcvData());
        assertEquals(9, c.portXmitWait());
        c = PortCounters.decode(answer(local, 1, counters(Method.SET, 1, 0xFFFF, 1)), D);
        assertEquals(0, c.portXmitWait(), "CounterSelect2 bit 0 is PortXmitWait");
        assertEquals(0, c.portRcvPkts());
        assertEquals(0, p.counter(Port.Counter.RCV_DATA));

        p.countTransmit(8);
        p.countReceive(8);
        PortCountersExtended e = PortCountersExtended.decode(answer(local, 1, extended(Method.SET, 1, 0x04)), D);
        assertEquals(0, e.portXmitPkts(), "bit 2 PortXmitPkts");
        assertEquals(2, e.portXmitData());
        assertEquals(1, e.portRcvPkts());
    }

    @Test
    void portSelectAndModifierChecks() {
        assertEquals(MadStatus.INVALID_FIELD, Mad.status(answer(local, 1, counters(Method.GET, 3, 0, 0))));
        assertEquals(MadStatus.INVALID_FIELD, Mad.status(answer(local, 1, counters(Method.GET, 0xFF, 0, 0))),
                "a CA does not do AllPortSelect");
        assertEquals(0, Mad.status(answer(local, 1, counters(Method.GET, 2, 0, 0))), "any port of the node");
        byte[] mod = counters(Method.GET, 1, 0, 0);
        mod[23] = 1;
        assertEquals(MadStatus.INVALID_FIELD, Mad.status(answer(local, 1, mod)));

        sw.port(1).countTransmit(40);
        sw.port(2).countTransmit(40);
        PortCounters all = PortCounters.decode(answer(sw, 1, counters(Method.GET, 0xFF, 0, 0)), D);
        assertEquals(20, all.portXmitData(), "AllPortSelect sums a switch's ports");
        assertEquals(0xFF, all.portSelect());
        answer(sw, 1, counters(Method.SET, 0xFF, 0xFFFF, 0));
        assertEquals(0, sw.port(2).counter(Port.Counter.XMIT_DATA));
    }

    @Test
    void portSelectZeroIsTheSwitchManagementPort() {
        // IBA 16.1.3.5: on a switch PortSelect 0 names port 0; ibsim's do_portcounters accepts 0..NumPorts
        sw.port(0).count(Port.Counter.SYMBOL_ERRORS, 12);
        sw.port(0).countReceive(80);
        sw.port(1).count(Port.Counter.SYMBOL_ERRORS, 1);
        byte[] r = answer(sw, 1, counters(Method.GET, 0, 0, 0));
        assertEquals(0, Mad.status(r));
        PortCounters zero = PortCounters.decode(r, D);
        assertEquals(0, zero.portSelect());
        assertEquals(12, zero.symbolErrorCounter(), "port 0's own counters, not port 1's");
        assertEquals(20, zero.portRcvData());
        PortCountersExtended e = PortCountersExtended.decode(answer(sw, 1, extended(Method.GET, 0, 0)), D);
        assertEquals(20, e.portRcvData());
        assertEquals(1, e.portRcvPkts());

        PortCounters all = PortCounters.decode(answer(sw, 1, counters(Method.GET, 0xFF, 0, 0)), D);
        assertEquals(13, all.symbolErrorCounter(), "AllPortSelect sums ports 0..NumPorts, as ibsim");

        PortCounters cleared = PortCounters.decode(answer(sw, 1, counters(Method.SET, 0, 1, 0)), D);
        assertEquals(0, cleared.symbolErrorCounter(), "CounterSelect bit 0 clears SymbolErrorCounter of port 0");
        assertEquals(0, sw.port(0).counter(Port.Counter.SYMBOL_ERRORS));
        assertEquals(1, sw.port(1).counter(Port.Counter.SYMBOL_ERRORS), "port 1 untouched");
        answer(sw, 1, extended(Method.SET, 0, 0x02));
        assertEquals(0, sw.port(0).counter(Port.Counter.RCV_DATA), "bit 1 PortRcvData");

        assertEquals(MadStatus.INVALID_FIELD, Mad.status(answer(local, 1, counters(Method.GET, 0, 0, 0))),
                "a CA has no port 0");
        assertEquals(MadStatus.INVALID_FIELD,
                Mad.status(answer(sw, 1, counters(Method.GET, sw.portCount() + 1, 0, 0))));
    }

    @Test
    void methodsAndVersions() {
        assertTrue(process(local, 1, perf(Method.GET_RESP, PerfAttribute.PORT_COUNTERS, 0)).isEmpty());
        assertTrue(process(local, 1, perf(Method.TRAP, PerfAttribute.PORT_COUNTERS, 0)).isEmpty());
        assertEquals(MadStatus.UNSUPPORTED_METHOD,
                Mad.status(answer(local, 1, perf(Method.GET_TABLE, PerfAttribute.PORT_COUNTERS, 0))));
        assertEquals(MadStatus.UNSUPPORTED_METHOD_ATTRIBUTE,
                Mad.status(answer(local, 1, perf(Method.GET, PerfAttribute.PORT_SAMPLES_CONTROL, 0))));
        byte[] v2 = counters(Method.GET, 1, 0, 0);
        v2[2] = 2;
        assertEquals(MadStatus.BAD_VERSION, Mad.status(answer(local, 1, v2)));
        assertEquals(7, answer(local, 1, counters(Method.GET, 1, 0, 0))[15], "transaction id kept");
    }
}
