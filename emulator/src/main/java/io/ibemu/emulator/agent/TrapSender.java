package io.ibemu.emulator.agent;

import io.ibemu.emulator.fabric.Fabric;
import io.ibemu.emulator.fabric.Node;
import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.fabric.PortEvent;
import io.ibemu.emulator.mad.Bits;
import io.ibemu.emulator.mad.Mad;
import io.ibemu.emulator.mad.MadHeader;
import io.ibemu.emulator.mad.Method;
import io.ibemu.emulator.mad.MgmtClass;
import io.ibemu.emulator.mad.SmAttribute;
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

    private static final int NOTICE_URGENT = 1;
    private static final int NOTICE_INFO = 4;
    private static final int DATA = 64;
    private static final int FULL_DEFAULT_PKEY = 0xFFFF;
    /** Resend bounds: a SubnetTimeout of 0 (4 us) would flood, one of 31 never repeat. */
    private static final int MIN_REPEAT_MS = 100;
    private static final int MAX_REPEAT_MS = 10_000;

    /** One trap number of one issuer: at most one of each waits for its TrapRepress. */
    private record Key(Port issuer, int trap) {
    }

    /** A trap waiting for its TrapRepress. */
    private record Pending(long tid, ScheduledFuture<?> timer) {
    }

    private final MadLayer layer;
    private final Map<Key, Pending> pending = new HashMap<>();
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

    /** Sends the trap now if the issuer knows its SM; it replaces a pending one of the same number. */
    void send(Port issuer, int trap) {
        if (issuer.smLid() == 0 || issuer.lid() == 0) {
            return;
        }
        Key key = new Key(issuer, trap);
        Pending old = pending.remove(key);
        if (old != null) {
            old.timer().cancel(false);
        }
        long tid = nextTid++;
        byte[] mad = notice(issuer, trap, tid);
        pending.put(key, new Pending(tid, layer.scheduleRepeating(() -> resend(key, tid, mad), repeatMs(issuer))));
        transmit(issuer, mad);
    }

    private void resend(Key key, long tid, byte[] mad) {
        Pending p = pending.get(key);
        if (p == null || p.tid() != tid) {
            return;
        }
        if (key.issuer().smLid() == 0) {
            forget(key);
            return;
        }
        transmit(key.issuer(), mad);
    }

    /** A TrapRepress reached the issuer's SMA: the trap with that TID stops. */
    void repressed(long tid) {
        for (Map.Entry<Key, Pending> e : pending.entrySet()) {
            if (e.getValue().tid() == tid) {
                forget(e.getKey());
                return;
            }
        }
    }

    private void forget(Key key) {
        Pending p = pending.remove(key);
        if (p != null) {
            p.timer().cancel(false);
        }
    }

    private void transmit(Port issuer, byte[] mad) {
        layer.transmit(issuer, new Datagram(issuer, issuer.lid(), issuer.smLid(), issuer.smSl(), 0, 0, 0, 0,
                FULL_DEFAULT_PKEY, mad.clone()));
    }

    /** SubnTrap(Notice), generic (IBA 14.2.5.1; ib_types.h ib_mad_notice_attr_t), in the SMP's data. */
    private static byte[] notice(Port issuer, int trap, long tid) {
        byte[] m = new byte[Mad.SIZE];
        new MadHeader(Mad.BASE_VERSION, MgmtClass.SUBN_LID_ROUTED, 1, Method.TRAP, 0, 0, tid, SmAttribute.NOTICE, 0)
                .encode(m);
        boolean linkState = trap == LINK_STATE_CHANGE;
        put(m, 0, 8, 0x80 | (linkState ? NOTICE_URGENT : NOTICE_INFO)); // IsGeneric, Type
        put(m, 1, 24, issuer.node().type().code()); // ProducerType
        put(m, 4, 16, trap);
        put(m, 6, 16, issuer.lid()); // IssuerLID
        // NoticeToggle and NoticeCount (bytes 8-9) stay 0: they number queued Notices, not traps
        if (linkState) {
            put(m, 10, 16, issuer.lid()); // LIDADDR of the switch
        } else {
            put(m, 12, 16, issuer.lid());
            put(m, 16, 32, issuer.capabilityMask());
            put(m, 22, 16, issuer.capabilityMask2());
        }
        // IssuerGID (Notice bytes 64-79) has no room in an SMP's 64-byte data: SMAs leave it out
        return m;
    }

    /** A big-endian field at byte {@code offset} of the Notice. */
    private static void put(byte[] m, int offset, int width, long value) {
        Bits.set(m, DATA + offset, 0, width, value);
    }

    private static int repeatMs(Port issuer) {
        long us = (long) (4.096 * (1L << Math.min(issuer.subnetTimeout(), 31)));
        return (int) Math.max(MIN_REPEAT_MS, Math.min(MAX_REPEAT_MS, us / 1000));
    }
}
