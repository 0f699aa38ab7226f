package io.ibemu.emulator.fault;

import java.util.Set;

/**
 * Where a rule acts ({@code on=}): each point with the scoping keys its events carry and the
 * effects it can apply, declared once. A point not listed here is refused by the parser rather
 * than accepted and never hit.
 */
public enum Point {
    /** A uverbs write command or ioctl method, by its kernel name, before its handler runs. */
    UVERBS("uverbs", true, false, Set.of("dev", "pid", "comm"), Set.of("errno")),
    /** A write(), read() or ioctl() on /dev/infiniband/umadN, before it acts. */
    UMAD("umad", true, false, Set.of("node", "port", "pid", "comm"), Set.of("errno")),
    /** A work completion: a send WR's as the requester finishes it, or a receive's (side=recv) as the responder does. */
    WC("wc", false, false, Set.of("dev", "qpn", "opcode", "side"), Set.of("status")),
    /** An asynchronous event, raised once when the rule is added. */
    EVENT("event", false, true, Set.of("dev", "port", "qpn"), Set.of("event")),
    /** A MAD leaving a port for its cable (SMPs, GMPs): lost, corrupt, duplicated or late on it. */
    MAD("mad", false, false, Set.of("node", "port", "class", "attr", "method"), Set.of("drop", "dup", "corrupt",
            "delay")),
    /** A verbs packet (RC, UC, UD request or RC answer) leaving an HCA port, by PSN. */
    PACKET("packet", false, false, Set.of("node", "port", "qpn", "opcode"), Set.of("drop", "dup", "corrupt",
            "reorder")),
    /** An rdma_cm command on /dev/infiniband/rdma_cm, by its kernel name, before it acts (wired with the rdmacm room). */
    UCMA("ucma", true, false, Set.of("pid", "comm"), Set.of("errno")),
    /** A cable, flapped once when the rule is added: cut, then plugged back in. */
    LINK("link", false, true, Set.of("link"), Set.of("flap"));

    /** The word after {@code on=}. */
    final String word;
    /** Whether the point takes {@code :NAME} ({@code uverbs:CREATE_QP}). */
    final boolean named;
    /** Whether the rule acts once, when added, rather than on events that match it. */
    final boolean once;
    final Set<String> scopes;
    final Set<String> effects;

    Point(String word, boolean named, boolean once, Set<String> scopes, Set<String> effects) {
        this.word = word;
        this.named = named;
        this.once = once;
        this.scopes = scopes;
        this.effects = effects;
    }

    public String word() {
        return word;
    }

    static Point of(String word) {
        for (Point p : values()) {
            if (p.word.equals(word)) {
                return p;
            }
        }
        return null;
    }
}
