package io.ibemu.emulator.cm;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.ibemu.emulator.agent.MadLayer;
import io.ibemu.emulator.device.HcaIdentity;
import io.ibemu.emulator.device.LocalHca;
import io.ibemu.emulator.fabric.Fabric;
import io.ibemu.emulator.fabric.MadFault;
import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.fabric.PresetSubnet;
import io.ibemu.emulator.hca.DataLink;
import io.ibemu.emulator.hca.Hca;
import io.ibemu.emulator.hca.QpType;
import io.ibemu.emulator.mad.Mad;
import io.ibemu.emulator.mad.MgmtClass;
import io.ibemu.emulator.mad.PathRecord;
import io.ibemu.emulator.topology.TopologyParser;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BiPredicate;

/**
 * Two local HCAs through one switch, the subnet configured as --sm preset leaves it, the real
 * MAD layer over it and one {@link Cm} for both, as the daemon has it. Every CM MAD leaving an
 * HCA port is recorded on the way out (the fabric's MAD fault hook, which can also lose it).
 */
final class CmFabric implements AutoCloseable {
    static final String TOPOLOGY = """
            Hca 1 "A"
            [1] "S"[1]

            Hca 1 "B"
            [1] "S"[2]

            Switch 4 "S"
            [1] "A"[1]
            [2] "B"[1]
            """;
    /** How long a test waits for an event before calling it missing: generous, never a speed claim. */
    static final long PATIENCE_S = 60;

    final Fabric fabric;
    final MadLayer layer;
    final DataLink link;
    final Hca a;
    final Hca b;
    final Port portA;
    final Port portB;
    final Cm cm;
    /** CM MADs as they left A's or B's port: "A>REQ", "B>REP", ... */
    final List<String> wire = new ArrayList<>();
    final List<byte[]> wireMads = new ArrayList<>();
    private volatile BiPredicate<Port, byte[]> loses = (p, m) -> false;

    CmFabric() throws Exception {
        fabric = Fabric.of(TopologyParser.parse("net", new StringReader(TOPOLOGY)));
        portA = fabric.node("A").orElseThrow().port(1);
        portB = fabric.node("B").orElseThrow().port(1);
        PresetSubnet.configure(fabric, portA);
        layer = new MadLayer(fabric);
        link = new DataLink(fabric);
        a = new Hca(new LocalHca(0, portA.node(), HcaIdentity.defaults(0), "0000:00:04.0", 0), fabric, link);
        b = new Hca(new LocalHca(1, portB.node(), HcaIdentity.defaults(1), "0000:00:05.0", 1), fabric, link);
        fabric.madFault((out, mad) -> {
            if ((out == portA || out == portB) && Mad.mgmtClass(mad) == MgmtClass.COMM_MGMT) {
                synchronized (wire) {
                    wire.add((out == portA ? "A>" : "B>") + name(Mad.attributeId(mad)));
                    wireMads.add(mad.clone());
                }
                return loses.test(out, mad) ? MadFault.Fate.LOST : MadFault.Fate.PASS;
            }
            return MadFault.Fate.PASS;
        });
        cm = new Cm(layer);
        cm.addDevice(a.local());
        cm.addDevice(b.local());
    }

    static String name(int attributeId) {
        return switch (attributeId) {
            case 0x10 -> "REQ";
            case 0x11 -> "MRA";
            case 0x12 -> "REJ";
            case 0x13 -> "REP";
            case 0x14 -> "RTU";
            case 0x15 -> "DREQ";
            case 0x16 -> "DREP";
            case 0x17 -> "SIDR_REQ";
            case 0x18 -> "SIDR_REP";
            default -> String.format("0x%04x", attributeId);
        };
    }

    /** From now on, CM MADs leaving {@code port} for which {@code rule} holds are lost. */
    void lose(BiPredicate<Port, byte[]> rule) {
        loses = rule;
    }

    List<String> wire() {
        synchronized (wire) {
            return List.copyOf(wire);
        }
    }

    /** {@link #wire} without retransmissions: a MAD from the same side with the same attribute and TID as an earlier one. */
    List<String> exchanges() {
        synchronized (wire) {
            List<String> out = new ArrayList<>();
            java.util.Set<String> seen = new java.util.HashSet<>();
            for (int i = 0; i < wire.size(); i++) {
                if (seen.add(wire.get(i) + "@" + Mad.transactionId(wireMads.get(i)))) {
                    out.add(wire.get(i));
                }
            }
            return out;
        }
    }

    List<byte[]> wireMads() {
        synchronized (wire) {
            return List.copyOf(wireMads);
        }
    }

    /** The path from {@code from} to {@code to} as the SA would answer it (OpenSM's packet life 0x12 lowered to 0). */
    static PathRecord path(Port from, Port to) {
        return new PathRecord(0, to.subnetPrefix(), to.guid(), from.subnetPrefix(), from.guid(), to.lid(), from.lid(),
                false, 0, 0, 0, true, 1, 0xffff, 0, 0, 2, 4, 2, 3, 2, 0, 0);
    }

    static CmRequestParam request(Port from, Port to, long serviceId, int qpn, int psn, byte[] privateData,
            int responseTimeout, int retries) {
        return new CmRequestParam(path(from, to), null, serviceId, qpn, QpType.RC, psn, privateData, 4, 2,
                responseTimeout, true, responseTimeout, 7, 6, retries, false);
    }

    /** What a handler saw: the id it was called for and the event. */
    record Seen(CmId id, CmEvent event) {
    }

    /** A handler that records every event; {@code then} may answer on the CM thread. */
    static final class Recorder implements CmHandler {
        final BlockingQueue<Seen> events = new LinkedBlockingQueue<>();
        volatile CmHandler then = (id, e) -> { };

        @Override
        public void handle(CmId id, CmEvent event) {
            events.add(new Seen(id, event));
            then.handle(id, event);
        }

        /** The next event, which must be a {@code type}. */
        <E extends CmEvent> Seen next(Class<E> type) throws InterruptedException {
            Seen s = events.poll(PATIENCE_S, TimeUnit.SECONDS);
            assertNotNull(s, "no " + type.getSimpleName() + " event");
            if (!type.isInstance(s.event())) {
                throw new AssertionError("expected " + type.getSimpleName() + ", got " + s.event());
            }
            return s;
        }
    }

    @Override
    public void close() {
        cm.close();
        a.close();
        b.close();
        link.close();
        layer.close();
    }
}
