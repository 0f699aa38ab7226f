package io.ibemu.emulator.agent;

import io.ibemu.emulator.fabric.Node;
import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.mad.Mad;
import io.ibemu.emulator.mad.MgmtClass;
import io.ibemu.emulator.mad.Smp;

/**
 * What a switch does with a packet that reaches it (IBA 18.2.4): directed-route SMPs follow
 * their initial or return path (smi.c's receive, forward and send rules, with the LID-routed
 * parts at either end), every other packet goes out the port its LinearForwardingTable names
 * for the DLID, and packets for the switch's own LID go to its management port 0. Each method
 * returns the {@link Hop} the packet takes next (null: delivered here or discarded); the
 * {@link Wire} crosses it.
 */
final class SwitchRelay {
    private static final int NO_ROUTE = 0xFF;

    private final Wire wire;

    SwitchRelay(Wire wire) {
        this.wire = wire;
    }

    /** A packet arriving on external port {@code in}. */
    Hop arrive(Port in, Datagram d) {
        Node sw = in.node();
        byte[] mad = d.mad();
        if (Smi.isLidRouted(mad)) {
            if (Mad.mgmtClass(mad) == MgmtClass.SUBN_DIRECTED_ROUTE && !Smp.direction(mad)
                    && Wire.isOwnLid(sw.port(0), d.dlid())) {
                return startDirectedRoute(sw, d);
            }
            return route(sw, in.number(), d);
        }
        if (!Smi.receive(mad, true, in.number(), sw.portCount())) {
            return null;
        }
        switch (Smi.next(mad)) {
            case FORWARD -> {
                int out = Smi.forwardPort(mad);
                if (out >= 1 && out <= sw.portCount() && Smi.send(mad, true, out)) {
                    return new Hop(sw.port(out), d);
                }
            }
            case SEND -> {
                if (!Smi.send(mad, true, in.number())) {
                    return null;
                }
                if (Smp.direction(mad)) {
                    // the return path ends here: this switch's SMI sends the rest of the way to
                    // DrSLID LID-routed, as from its port 0, so leaving by the arrival port is no loop
                    return route(sw, 0, readdressed(d, Smp.drSlid(mad)));
                }
                wire.deliver(sw.port(0), d, in.number());
            }
            case LOCAL -> wire.deliver(sw.port(0), d, in.number());
        }
        return null;
    }

    /** The LID-routed head of a directed-route SMP reached the switch where its path starts. */
    private Hop startDirectedRoute(Node sw, Datagram d) {
        byte[] mad = d.mad();
        int out = Smp.initialPath(mad, 1);
        if (out >= 1 && out <= sw.portCount() && Smi.send(mad, true, out)) {
            return new Hop(sw.port(out), d);
        }
        return null;
    }

    /**
     * LID routing: to port 0 when the DLID is the switch's own (or permissive, for an SMP), else
     * out the port the LinearForwardingTable gives. A packet with no valid route, or one the table
     * sends back out the port it came in by (looping), is discarded and counted in the ingress
     * port's PortRcvSwitchRelayErrors ({@code inPort} 0: sent by the switch itself).
     */
    Hop route(Node sw, int inPort, Datagram d) {
        Port management = sw.port(0);
        int dlid = d.dlid();
        if (Wire.isOwnLid(management, dlid) || (dlid == Smp.PERMISSIVE_LID && Mad.isSmp(d.mad()))) {
            wire.deliver(management, d, inPort);
            return null;
        }
        int out = sw.route(dlid);
        if (out == 0) {
            wire.deliver(management, d, inPort);
        } else if (out == NO_ROUTE || out > sw.portCount() || out == inPort) {
            if (inPort != 0) {
                sw.port(inPort).count(Port.Counter.RCV_SWITCH_RELAY_ERRORS, 1);
            }
        } else {
            return new Hop(sw.port(out), d);
        }
        return null;
    }

    private static Datagram readdressed(Datagram d, int dlid) {
        return new Datagram(d.source(), d.slid(), dlid, d.sl(), d.pathBits(), d.srcQp(), d.destQp(), d.qkey(),
                d.pkey(), d.mad());
    }
}
