package io.ibemu.emulator.agent;

import io.ibemu.emulator.fabric.LinkPacket;
import io.ibemu.emulator.fabric.MadFault;
import io.ibemu.emulator.fabric.Node;
import io.ibemu.emulator.fabric.PacketTap;
import io.ibemu.emulator.fabric.PhysPortState;
import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.fabric.PortState;
import io.ibemu.emulator.mad.Mad;
import io.ibemu.emulator.mad.MgmtClass;
import io.ibemu.emulator.mad.Smp;
import io.ibemu.emulator.topology.NodeType;

/**
 * The cables of the fabric and what a channel adapter's port accepts from them: link and port
 * state rules (IBA 7.2: SMPs cross links in Init, Armed and Active, other packets only Active
 * ones), the PMA data counters, the LID and P_Key checks of an arriving packet, and the
 * directed-route receive rules at a CA (smi.h). Switches relay through {@link SwitchRelay}.
 * Runs under the fabric lock, on the thread that drains {@link MadLayer}'s queue.
 */
final class Wire {
    /** A MAD's UD packet from LRH through ICRC: 8 + 12 (BTH) + 8 (DETH) + 256 + 4 octets. */
    static final int MAD_PACKET_OCTETS = 288;

    private final MadLayer layer;
    private final SwitchRelay relay;

    Wire(MadLayer layer) {
        this.layer = layer;
        this.relay = new SwitchRelay(this);
    }

    /** A packet leaves a port: a CA's (or a switch's external) port, or a switch's management port 0. */
    void send(Port from, Datagram d) {
        Node node = from.node();
        if (node.type() == NodeType.SWITCH && from.number() == 0) {
            travel(relay.route(node, 0, d));
        } else if (node.type() != NodeType.SWITCH && Smi.isLidRouted(d.mad()) && isOwnLid(from, d.dlid())) {
            // a packet for the port's own LID loops back inside the HCA without touching the cable
            if (carries(from, Mad.isSmp(d.mad()))) {
                travel(arrive(from, d));
            }
        } else {
            travel(new Hop(from, d));
        }
    }

    /**
     * Crosses cable after cable until the packet is delivered or lost. A loop rather than each hop
     * calling the next: the recursion let C2 inline hop into hop (20-25 KB of code per method, a
     * 14 MB compiler arena cold, docs/decisions.md "memory").
     */
    private void travel(Hop hop) {
        while (hop != null) {
            hop = cross(hop.out(), hop.datagram());
        }
    }

    /** Puts the packet on the cable at {@code out}; lost when the link cannot carry it. */
    private Hop cross(Port out, Datagram d) {
        return cross(out, d, true);
    }

    /** {@code faulty}: whether the port's drop rate and fault rules act (not again on a copy or a late packet). */
    private Hop cross(Port out, Datagram d, boolean faulty) {
        Port in = out.peer().orElse(null);
        boolean smp = Mad.isSmp(d.mad());
        if (in == null || !carries(out, smp) || !carries(in, smp)) {
            return null;
        }
        MadFault.Fate fate = faulty ? out.outgoing(d.mad()) : MadFault.Fate.PASS;
        switch (fate.kind()) {
            case LOST -> {
                // it left whole and arrives corrupt: the sender's capture sees it go, the receiver discards it
                PacketTap sent = out.tap();
                if (sent != null) {
                    captured(out, sent, in, null, d.onTheWire());
                }
                return null;
            }
            case DUP -> {
                // the copy makes its whole way first, then the original
                travel(cross(out, d, false));
                return cross(out, d, false);
            }
            case DELAY -> {
                // it crosses this cable later (the link and port checks then apply again)
                layer.later(() -> travel(cross(out, d, false)), fate.delayNanos());
                return null;
            }
            default -> {
            }
        }
        out.countTransmit(MAD_PACKET_OCTETS);
        in.countReceive(MAD_PACKET_OCTETS);
        PacketTap sent = out.tap();
        PacketTap heard = in.tap();
        if (sent != null || heard != null) {
            captured(out, sent, in, heard, d.onTheWire());
        }
        return arrive(in, d);
    }

    static void captured(Port out, PacketTap sent, Port in, PacketTap heard, LinkPacket packet) {
        if (sent != null) {
            sent.crossed(out, true, packet);
        }
        if (heard != null) {
            heard.crossed(in, false, packet);
        }
    }

    /** The packet reached {@code in}: a switch relays it (the next hop), a CA takes it or drops it. */
    private Hop arrive(Port in, Datagram d) {
        if (in.node().type() == NodeType.SWITCH) {
            return relay.arrive(in, d);
        }
        byte[] mad = d.mad();
        if (Mad.mgmtClass(mad) == MgmtClass.SUBN_DIRECTED_ROUTE) {
            // one still LID-routed here must be addressed to this port (a tail to its DrSLID)
            if (!Smi.isLidRouted(mad) || isOwnLid(in, d.dlid())) {
                acceptDirectedRoute(in, d);
            }
        } else if (isOwnLid(in, d.dlid()) || (d.dlid() == Smp.PERMISSIVE_LID && Mad.isSmp(mad))) {
            deliver(in, d, in.number());
        }
        return null;
    }

    /** smi_handle_dr_smp_recv and what follows it at a channel adapter, which never relays. */
    private void acceptDirectedRoute(Port in, Datagram d) {
        byte[] mad = d.mad();
        if (!Smi.receive(mad, false, in.number(), in.node().portCount())) {
            return;
        }
        if (Smi.next(mad) == Smi.Next.SEND && !Smi.send(mad, false, in.number())) {
            return;
        }
        deliver(in, d, in.number());
    }

    /** To the MAD services of {@code at}: GSI packets first pass the P_Key check (IBA 10.9.3). */
    void deliver(Port at, Datagram d, int arrivalPort) {
        if (!Mad.isSmp(d.mad()) && !at.acceptsPKey(d.pkey())) {
            at.countPKeyViolation();
            return;
        }
        layer.port(at).receive(d, arrivalPort);
    }

    /** Whether a port passes an SMP (any state but Down) or another packet (Active only). */
    static boolean carries(Port p, boolean smp) {
        return p.physicalState() == PhysPortState.LINK_UP
                && (smp ? p.state() != PortState.DOWN : p.state() == PortState.ACTIVE);
    }

    /** The port's LID range under its LMC; a port without a LID owns none. */
    static boolean isOwnLid(Port p, int dlid) {
        int lid = p.lid();
        return lid != 0 && dlid != Smp.PERMISSIVE_LID && (dlid >>> p.lmc()) == (lid >>> p.lmc());
    }
}
