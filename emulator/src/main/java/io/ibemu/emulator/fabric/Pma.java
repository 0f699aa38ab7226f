package io.ibemu.emulator.fabric;

import static java.util.Map.entry;

import io.ibemu.emulator.mad.Bits;
import io.ibemu.emulator.mad.ClassPortInfo;
import io.ibemu.emulator.mad.Mad;
import io.ibemu.emulator.mad.MadStatus;
import io.ibemu.emulator.mad.Method;
import io.ibemu.emulator.mad.PerfAttribute;
import io.ibemu.emulator.mad.PortCounters;
import io.ibemu.emulator.mad.PortCountersExtended;
import io.ibemu.emulator.topology.NodeType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The performance management agent of a node (IBA 16.1; qib_mad.c process_perf, ibsim's
 * do_portcounters): ClassPortInfo, PortCounters and PortCountersExtended, one handler each in a
 * table keyed by attribute id. A Set clears the selected counters and answers as a Get.
 */
final class Pma {
    private static final int DATA = Mad.PERF_DATA_OFFSET;
    /** Expected response time 4.096 us * 2^18, as qib reports. */
    private static final int RESP_TIME_VALUE = 18;

    /** Handles a Get or Set of one attribute into the response; returns a MAD status. */
    @FunctionalInterface
    interface Handler {
        int handle(Node node, int inPort, int attributeModifier, byte[] response, boolean set);
    }

    record Attribute(String name, Handler handler, boolean settable) {
    }

    static final Map<Integer, Attribute> ATTRIBUTES = Map.ofEntries(
            entry(PerfAttribute.CLASS_PORT_INFO, new Attribute("ClassPortInfo", Pma::classPortInfo, false)),
            entry(PerfAttribute.PORT_COUNTERS, new Attribute("PortCounters", Pma::portCounters, true)),
            entry(PerfAttribute.PORT_COUNTERS_EXTENDED,
                    new Attribute("PortCountersExtended", Pma::portCountersExtended, true)));

    private Pma() {
    }

    static Optional<byte[]> process(Node node, int inPort, byte[] request) {
        int method = Mad.method(request);
        if (method != Method.GET && method != Method.SET) {
            if (Method.isResponse(method) || method == Method.TRAP) {
                return Optional.empty();
            }
            return Optional.of(reply(Arrays.copyOf(request, Mad.SIZE), MadStatus.UNSUPPORTED_METHOD, true));
        }
        if (Mad.classVersion(request) != 1) {
            return Optional.of(reply(Arrays.copyOf(request, Mad.SIZE), MadStatus.BAD_VERSION, true));
        }
        Attribute a = ATTRIBUTES.get(Mad.attributeId(request));
        if (a == null || (method == Method.SET && !a.settable())) {
            return Optional.of(reply(Arrays.copyOf(request, Mad.SIZE), MadStatus.UNSUPPORTED_METHOD_ATTRIBUTE, true));
        }
        byte[] response = Arrays.copyOf(request, Mad.SIZE);
        int status = a.handler().handle(node, inPort, Mad.attributeModifier(request), response, method == Method.SET);
        return Optional.of(reply(response, status, false));
    }

    private static byte[] reply(byte[] response, int status, boolean clear) {
        if (clear) {
            Arrays.fill(response, DATA, Mad.SIZE, (byte) 0);
        }
        Mad.setMethod(response, Method.GET_RESP);
        Mad.setStatus(response, status);
        return response;
    }

    private static int classPortInfo(Node node, int inPort, int attributeModifier, byte[] response, boolean set) {
        Arrays.fill(response, DATA, Mad.SIZE, (byte) 0);
        if (attributeModifier != 0) {
            return MadStatus.INVALID_FIELD;
        }
        // HCAs report extended width and PortXmitWait (qib); switches also AllPortSelect (ibsim)
        int cap = PerfAttribute.CAP_EXTENDED_WIDTH | PerfAttribute.CAP_PORT_XMIT_WAIT;
        if (node.type() == NodeType.SWITCH) {
            cap |= PerfAttribute.CAP_ALL_PORT_SELECT;
        }
        new ClassPortInfo(1, 1, cap, 0, RESP_TIME_VALUE, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
                .encode(response, DATA);
        return MadStatus.SUCCESS;
    }

    /**
     * The ports PortSelect names (IBA 16.1.3.5): one port, a switch's port 0 being its management
     * port, or for 0xFF every port of a switch, 0 included (ibsim's do_portcounters); null if invalid.
     */
    private static List<Port> selected(Node node, int portSelect) {
        if (portSelect == PerfAttribute.ALL_PORTS && node.type() == NodeType.SWITCH) {
            return node.ports();
        }
        if (!node.hasPort(portSelect)) {
            return null;
        }
        return List.of(node.port(portSelect));
    }

    private static long[] sum(List<Port> ports) {
        long[] total = new long[Port.Counter.values().length];
        for (Port p : ports) {
            long[] raw = p.rawCounters();
            for (int i = 0; i < total.length; i++) {
                total[i] += raw[i];
            }
        }
        return total;
    }

    private static int portCounters(Node node, int inPort, int attributeModifier, byte[] response, boolean set) {
        PortCounters request = PortCounters.decode(response, DATA);
        Arrays.fill(response, DATA, Mad.SIZE, (byte) 0);
        List<Port> ports = selected(node, request.portSelect());
        if (attributeModifier != 0 || ports == null) {
            new PortCounters(request.portSelect(), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
                    .encode(response, DATA);
            return MadStatus.INVALID_FIELD;
        }
        if (set) {
            List<Port.Counter> clear = new ArrayList<>();
            for (Port.Counter c : Port.Counter.values()) {
                if (c.ordinal() < 16 && (request.counterSelect() & (1 << c.ordinal())) != 0) {
                    clear.add(c);
                }
            }
            if ((request.counterSelect2() & 1) != 0) {
                clear.add(Port.Counter.XMIT_WAIT);
            }
            for (Port p : ports) {
                clear.forEach(p::clear);
            }
        }
        portCounters(request.portSelect(), sum(ports)).encode(response, DATA);
        return MadStatus.SUCCESS;
    }

    private static int portCountersExtended(Node node, int inPort, int attributeModifier, byte[] response,
                                            boolean set) {
        PortCountersExtended request = PortCountersExtended.decode(response, DATA);
        Arrays.fill(response, DATA, Mad.SIZE, (byte) 0);
        List<Port> ports = selected(node, request.portSelect());
        if (attributeModifier != 0 || ports == null) {
            new PortCountersExtended(request.portSelect(), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0).encode(response, DATA);
            return MadStatus.INVALID_FIELD;
        }
        if (set) {
            for (int bit = 0; bit < Port.EXTENDED_SELECT.length; bit++) {
                if ((request.counterSelect() & (1 << bit)) != 0) {
                    for (Port p : ports) {
                        p.clear(Port.EXTENDED_SELECT[bit]);
                    }
                }
            }
        }
        portCountersExtended(request.portSelect(), sum(ports)).encode(response, DATA);
        return MadStatus.SUCCESS;
    }

    /** PortCounters from raw counts, each saturated at its field's width (IBA 16.1.3.5). */
    static PortCounters portCounters(int portSelect, long[] raw) {
        return new PortCounters(portSelect, 0,
                (int) sat(raw, Port.Counter.SYMBOL_ERRORS),
                (int) sat(raw, Port.Counter.LINK_ERROR_RECOVERY),
                (int) sat(raw, Port.Counter.LINK_DOWNED),
                (int) sat(raw, Port.Counter.RCV_ERRORS),
                (int) sat(raw, Port.Counter.RCV_REMOTE_PHYSICAL_ERRORS),
                (int) sat(raw, Port.Counter.RCV_SWITCH_RELAY_ERRORS),
                (int) sat(raw, Port.Counter.XMIT_DISCARDS),
                (int) sat(raw, Port.Counter.XMIT_CONSTRAINT_ERRORS),
                (int) sat(raw, Port.Counter.RCV_CONSTRAINT_ERRORS),
                0,
                (int) sat(raw, Port.Counter.LOCAL_LINK_INTEGRITY_ERRORS),
                (int) sat(raw, Port.Counter.EXCESSIVE_BUFFER_OVERRUN_ERRORS),
                0,
                (int) sat(raw, Port.Counter.VL15_DROPPED),
                sat(raw, Port.Counter.XMIT_DATA),
                sat(raw, Port.Counter.RCV_DATA),
                sat(raw, Port.Counter.XMIT_PKTS),
                sat(raw, Port.Counter.RCV_PKTS),
                sat(raw, Port.Counter.XMIT_WAIT));
    }

    static PortCountersExtended portCountersExtended(int portSelect, long[] raw) {
        return new PortCountersExtended(portSelect, 0, 0,
                raw[Port.Counter.XMIT_DATA.ordinal()],
                raw[Port.Counter.RCV_DATA.ordinal()],
                raw[Port.Counter.XMIT_PKTS.ordinal()],
                raw[Port.Counter.RCV_PKTS.ordinal()],
                raw[Port.Counter.UNICAST_XMIT_PKTS.ordinal()],
                raw[Port.Counter.UNICAST_RCV_PKTS.ordinal()],
                raw[Port.Counter.MULTICAST_XMIT_PKTS.ordinal()],
                raw[Port.Counter.MULTICAST_RCV_PKTS.ordinal()]);
    }

    private static long sat(long[] raw, Port.Counter c) {
        long max = Bits.mask(c.portCountersWidth());
        long v = raw[c.ordinal()];
        return v < 0 || v > max ? max : v;
    }
}
