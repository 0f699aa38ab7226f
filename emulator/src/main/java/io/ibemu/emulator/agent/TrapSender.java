package io.ibemu.emulator.agent;

import io.ibemu.emulator.fabric.Fabric;
import io.ibemu.emulator.fabric.Node;
import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.fabric.PortEvent;
import io.ibemu.emulator.topology.NodeType;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;

/**
 * The SMAs' traps (IBA 14.2.5.1, Notice): a switch reports a link going up or down with trap
 * 128, a CA port a change of its CapabilityMask with trap 144. Each goes LID-routed to the
 * port's MasterSMLID when it has one, and is sent again every subnet timeout until the SM
 * answers with TrapRepress for its TID.
 */
final class TrapSender {
    static final int LINK_STATE_CHANGE = 128;
    static final int CAPABILITY_MASK_CHANGE = 144;

    private static final int METHOD_TRAP = 0x05;
    private static final int ATTR_NOTICE = 0x0002;
    private static final int NOTICE_URGENT = 1;
    private static final int NOTICE_INFO = 4;
    private static final int DATA = 64;
    private static final int FULL_DEFAULT_PKEY = 0xFFFF;
    /** Resend bounds: a SubnetTimeout of 0 (4 us) would flood, one of 31 never repeat. */
    private static final int MIN_REPEAT_MS = 100;
    private static final int MAX_REPEAT_MS = 10_000;

    /** A trap waiting for its TrapRepress. */
    private record Pending(Port issuer, int trap, long tid, ScheduledFuture<?> timer) {
    }

    private final MadLayer layer;
    private final Map<Long, Pending> pending = new HashMap<>();
    private final Map<Port, Pending> latest = new HashMap<>();
    private long nextTid = 1;

    TrapSender(MadLayer layer, Fabric fabric) {
        this.layer = layer;
        fabric.addListener(this::portEvent);
    }

    private void portEvent(PortEvent e) {
        Port p = e.port();
        Node node = p.node();
        if (e.kind() == PortEvent.Kind.LINK_STATE_CHANGE && node.type() == NodeType.SWITCH && p.number() != 0) {
            send(node.port(0), LINK_STATE_CHANGE);
        } else if (e.kind() == PortEvent.Kind.CAPABILITY_MASK_CHANGE && node.type() != NodeType.SWITCH) {
            send(p, CAPABILITY_MASK_CHANGE);
        }
    }

    /** Sends the trap now if the issuer knows its SM; a newer trap of a port replaces its older one. */
    void send(Port issuer, int trap) {
        if (issuer.smLid() == 0 || issuer.lid() == 0) {
            return;
        }
        Pending old = latest.remove(issuer);
        if (old != null && old.trap() == trap) {
            pending.remove(old.tid());
            old.timer().cancel(false);
        } else if (old != null) {
            latest.put(issuer, old);
        }
        long tid = nextTid++;
        byte[] mad = notice(issuer, trap, tid);
        int repeatMs = repeatMs(issuer);
        Pending p = new Pending(issuer, trap, tid, layer.scheduleRepeating(() -> resend(tid, mad), repeatMs));
        pending.put(tid, p);
        latest.put(issuer, p);
        transmit(issuer, mad);
    }

    private void resend(long tid, byte[] mad) {
        Pending p = pending.get(tid);
        if (p == null) {
            return;
        }
        if (p.issuer().smLid() == 0) {
            forget(p);
            return;
        }
        transmit(p.issuer(), mad.clone());
    }

    /** A TrapRepress reached the issuer's SMA: the trap with that TID stops. */
    void repressed(long tid) {
        Pending p = pending.get(tid);
        if (p != null) {
            forget(p);
        }
    }

    private void forget(Pending p) {
        pending.remove(p.tid());
        latest.remove(p.issuer(), p);
        p.timer().cancel(false);
    }

    private void transmit(Port issuer, byte[] mad) {
        layer.transmit(issuer, new Datagram(issuer, issuer.lid(), issuer.smLid(), issuer.smSl(), 0, 0, 0, 0,
                FULL_DEFAULT_PKEY, mad.clone()));
    }

    private byte[] notice(Port issuer, int trap, long tid) {
        byte[] m = new byte[Mads.SIZE];
        m[0] = Mads.BASE_VERSION;
        m[1] = Mads.CLASS_SUBN_LID_ROUTED;
        m[2] = 1;
        m[3] = METHOD_TRAP;
        Mads.setTid(m, tid);
        put16(m, 16, ATTR_NOTICE);
        boolean linkState = trap == LINK_STATE_CHANGE;
        m[DATA] = (byte) (0x80 | (linkState ? NOTICE_URGENT : NOTICE_INFO));
        int producer = issuer.node().type().code();
        m[DATA + 1] = (byte) (producer >>> 16);
        put16(m, DATA + 2, producer);
        put16(m, DATA + 4, trap);
        put16(m, DATA + 6, issuer.lid());
        // NoticeToggle and NoticeCount (bytes 8-9) stay 0: they number queued Notices, not traps
        int details = DATA + 10;
        if (linkState) {
            put16(m, details, issuer.lid());
        } else {
            put16(m, details + 2, issuer.lid());
            put32(m, details + 6, issuer.capabilityMask());
            put16(m, details + 12, issuer.capabilityMask2());
        }
        // IssuerGID (Notice bytes 64-79) has no room in an SMP's 64-byte data: SMAs leave it out
        return m;
    }

    private static int repeatMs(Port issuer) {
        long us = (long) (4.096 * (1L << Math.min(issuer.subnetTimeout(), 31)));
        return (int) Math.max(MIN_REPEAT_MS, Math.min(MAX_REPEAT_MS, us / 1000));
    }

    private static void put16(byte[] m, int off, int v) {
        m[off] = (byte) (v >>> 8);
        m[off + 1] = (byte) v;
    }

    private static void put32(byte[] m, int off, int v) {
        put16(m, off, v >>> 16);
        put16(m, off + 2, v);
    }

}
