package io.ibemu.emulator.hca;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The multicast groups UD QPs of one HCA are attached to, by (MGID, MLID) as rdmavt's
 * rvt_mcast_find looks them up. Guarded by the model lock.
 */
final class MulticastGroups {
    private record Group(String mgid, int mlid) {
    }

    private final Map<Group, Set<QueuePair>> groups = new HashMap<>();

    /** Adds {@code qp}; false when it already was a member (attaching twice is not an error: rvt_attach_mcast). */
    boolean attach(QueuePair qp, byte[] mgid, int mlid) {
        return groups.computeIfAbsent(new Group(hex(mgid), mlid), g -> new LinkedHashSet<>()).add(qp);
    }

    /** Removes {@code qp}; false when it was not a member. */
    boolean detach(QueuePair qp, byte[] mgid, int mlid) {
        Group g = new Group(hex(mgid), mlid);
        Set<QueuePair> members = groups.get(g);
        if (members == null || !members.remove(qp)) {
            return false;
        }
        if (members.isEmpty()) {
            groups.remove(g);
        }
        return true;
    }

    int members(byte[] mgid, int mlid) {
        Set<QueuePair> m = groups.get(new Group(hex(mgid), mlid));
        return m == null ? 0 : m.size();
    }

    /** The attached QPs of the group on port {@code port}; a packet without GRH matches by MLID alone. */
    List<QueuePair> lookup(byte[] mgid, int mlid, int port) {
        List<QueuePair> out = new ArrayList<>();
        String want = mgid == null ? null : hex(mgid);
        for (Map.Entry<Group, Set<QueuePair>> e : groups.entrySet()) {
            if (e.getKey().mlid() == mlid && (want == null || want.equals(e.getKey().mgid()))) {
                for (QueuePair qp : e.getValue()) {
                    if (qp.attrs.portNum() == port && !out.contains(qp)) {
                        out.add(qp);
                    }
                }
            }
        }
        return out;
    }

    /** Every group {@code qp} is in, removed; the number removed. */
    int detachAll(QueuePair qp) {
        int n = 0;
        for (var it = groups.entrySet().iterator(); it.hasNext();) {
            var e = it.next();
            if (e.getValue().remove(qp)) {
                n++;
            }
            if (e.getValue().isEmpty()) {
                it.remove();
            }
        }
        return n;
    }

    private static String hex(byte[] gid) {
        StringBuilder b = new StringBuilder(32);
        for (byte x : gid) {
            b.append(String.format("%02x", x & 0xFF));
        }
        return b.toString();
    }
}
