package io.ibemu.emulator.fault;

import io.ibemu.emulator.fabric.Fabric;
import io.ibemu.emulator.fabric.MadFault;
import io.ibemu.emulator.fabric.Node;
import io.ibemu.emulator.fabric.Port;
import io.ibemu.emulator.hca.CompletionFault;
import io.ibemu.emulator.hca.Hca;
import io.ibemu.emulator.hca.PacketFault;
import io.ibemu.emulator.hca.QueuePair;
import io.ibemu.emulator.hca.SendWorkRequest;
import io.ibemu.emulator.hca.WorkCompletion;
import io.ibemu.kernel.Errno;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The instance's fault rules, each with its id and hit count; the one owner of that state. The
 * points consult it ({@link #failCall}); `ctl fault` and --faults change it. Every hit is written
 * to the instance log with the rule's id. A rule's decision depends only on the sequence of events
 * that match it (its own generator advances once per match), so the same rules against the same
 * program hit the same events.
 */
public final class Faults {
    private static final System.Logger LOG = System.getLogger(Faults.class.getName());

    private final LongSupplier clock;
    /** The rules in the order added; copied on change so that a point reads it without a lock. */
    private volatile List<Armed> rules = List.of();
    /** The same rules by point, replaced with it: an event meets only its own point's rules. */
    private volatile Map<Point, List<Armed>> byPoint = Map.of();
    private long nextId = 1; // guarded by this
    /** The fabric whose cables on=link flaps; null until attached. */
    private volatile Fabric fabric;
    /** Plugs flapped cables back in; started with the first flap. */
    private ScheduledExecutorService timer; // guarded by this
    /** The local HCAs by device name, for on=wc and on=event. */
    private final Map<String, Hca> hcas = new ConcurrentHashMap<>();

    /** The names each named point offers ({@code uverbs}: its commands), to refuse a misspelt one. */
    private final Map<Point, Set<String>> names = new ConcurrentHashMap<>();

    public Faults() {
        this(System::nanoTime);
    }

    /** {@code clock}: nanoseconds, for after= and for=. */
    public Faults(LongSupplier clock) {
        this.clock = clock;
    }

    /** A rule in the table: its id, its counts and its generator. */
    private final class Armed {
        final int id;
        final FaultRule rule;
        final long addedAt;
        private final SplittableRandom random;
        private long matched; // guarded by this
        private long hits; // guarded by this

        Armed(int id, FaultRule rule) {
            this.id = id;
            this.rule = rule;
            this.addedAt = clock.getAsLong();
            this.random = new SplittableRandom(rule.seed());
        }

        /** Whether this matching event is hit: nth, every, prob and count, in that order. */
        synchronized boolean decide() {
            long now = clock.getAsLong() - addedAt;
            long start = rule.after().toNanos();
            if (now < start || (rule.lasting() != null && now - start >= rule.lasting().toNanos())) {
                return false;
            }
            long k = ++matched;
            boolean drawn = rule.prob() >= 1 || random.nextDouble() < rule.prob(); // drawn on every match
            boolean hit = (rule.nth() == 0 || k == rule.nth()) && (rule.every() == 0 || k % rule.every() == 0)
                    && drawn && (rule.count() == 0 || hits < rule.count());
            if (hit) {
                hits++;
            }
            return hit;
        }

        synchronized String line() {
            return id + " hits=" + hits + " matched=" + matched + " " + rule;
        }
    }

    /** The names a named point offers: a rule naming another one is refused. */
    public void offer(Point point, Set<String> offered) {
        names.merge(point, Set.copyOf(offered), (a, b) -> {
            java.util.Set<String> u = new java.util.TreeSet<>(a);
            u.addAll(b);
            return Set.copyOf(u);
        });
    }

    /** Makes {@code fabric}'s cables subject to on=link rules and its MADs to on=mad rules. */
    public void attach(Fabric fabric) {
        this.fabric = fabric;
        fabric.madFault(this::mad);
    }

    /** The fault point of a MAD leaving {@code out} (under the fabric lock): the effect of the first rule that hits it. */
    private MadFault.Fate mad(Port out, byte[] mad) {
        List<Armed> now = at(Point.MAD);
        if (now.isEmpty() || mad.length < 24) {
            return MadFault.Fate.PASS;
        }
        Facts facts = key -> switch (key) {
            case "node" -> out.node().id();
            case "port" -> Integer.toString(out.number());
            case "class" -> Integer.toString(mad[1] & 0xff);
            case "method" -> Integer.toString(mad[3] & 0xff);
            case "attr" -> Integer.toString((mad[16] & 0xff) << 8 | (mad[17] & 0xff));
            default -> null;
        };
        for (Armed a : now) {
            if (scoped(a.rule, facts) && a.decide()) {
                FaultRule r = a.rule;
                String what = r.delay() != null ? "delayed by " + r.delay().toNanos() / 1000 + " us"
                        : r.harm() == FaultRule.Harm.DUP ? "duplicated" : r.harm() == FaultRule.Harm.CORRUPT
                        ? "corrupted" : "dropped";
                LOG.log(System.Logger.Level.INFO, "fault rule {0} {1} a MAD leaving {2}: class 0x{3} method 0x{4} "
                        + "attribute 0x{5} TID 0x{6}", a.id, what, out, Integer.toHexString(mad[1] & 0xff),
                        Integer.toHexString(mad[3] & 0xff), Integer.toHexString((mad[16] & 0xff) << 8 | (mad[17] & 0xff)),
                        Long.toHexString(java.nio.ByteBuffer.wrap(mad, 8, 8).getLong()));
                if (r.delay() != null) {
                    return MadFault.Fate.delay(r.delay().toNanos());
                }
                return r.harm() == FaultRule.Harm.DUP ? MadFault.Fate.DUP : MadFault.Fate.LOST;
            }
        }
        return MadFault.Fate.PASS;
    }

    /** Makes {@code hca}'s send completions, packets and events subject to the rules; returns it. */
    public Hca attach(Hca hca) {
        hcas.put(hca.local().name(), hca);
        hca.completionFault(new CompletionFault() {
            @Override
            public int status(QueuePair qp, SendWorkRequest wr, int status) {
                return completion(hca, qp, wr, status);
            }

            @Override
            public int receiveStatus(QueuePair qp, WorkCompletion wc) {
                return receipt(hca, qp, wc);
            }
        });
        hca.packetFault(new PacketFault() {
            @Override
            public boolean armed() {
                return !at(Point.PACKET).isEmpty();
            }

            @Override
            public Fate fate(Port out, QueuePair requester, int opcode, boolean response, int psn) {
                return packet(out, requester, opcode, response, psn);
            }
        });
        return hca;
    }

    /**
     * The fault point of a verbs packet leaving {@code out} (under the model lock): the harm of the
     * first on=packet rule that hits it. qpn= names the requesting QP: its requests and the answers to them.
     */
    private PacketFault.Fate packet(Port out, QueuePair requester, int opcode, boolean response, int psn) {
        Facts facts = key -> switch (key) {
            case "node" -> out.node().id();
            case "port" -> Integer.toString(out.number());
            case "qpn" -> Integer.toString(requester.qpNum());
            case "opcode" -> FaultRule.opcodeName(opcode);
            default -> null;
        };
        for (Armed a : at(Point.PACKET)) {
            if (scoped(a.rule, facts) && a.decide()) {
                LOG.log(System.Logger.Level.INFO, "fault rule {0} {1} a packet leaving {2}: {3} {4} PSN 0x{5} of QP 0x{6}",
                        a.id, switch (a.rule.harm()) {
                            case DROP -> "dropped";
                            case DUP -> "duplicated";
                            case CORRUPT -> "corrupted";
                            case REORDER -> "reordered";
                        }, out, FaultRule.opcodeName(opcode), response ? "response to" : "request",
                        Integer.toHexString(psn), Integer.toHexString(requester.qpNum()));
                return switch (a.rule.harm()) {
                    case DROP -> PacketFault.Fate.DROP;
                    case DUP -> PacketFault.Fate.DUP;
                    case CORRUPT -> PacketFault.Fate.CORRUPT;
                    case REORDER -> PacketFault.Fate.REORDER;
                };
            }
        }
        return PacketFault.Fate.PASS;
    }

    /** Adds a rule read from {@code text}; its id. An on=event rule raises its event now, or is refused. */
    public int add(String text) throws FaultSyntaxException {
        FaultRule rule = FaultRule.parse(text);
        Hca target = rule.point() == Point.EVENT || rule.point() == Point.WC ? hca(rule) : null;
        if (rule.point() == Point.PACKET) {
            packetNode(rule);
        }
        Set<String> offered = names.get(rule.point());
        if (rule.name() != null && offered != null && !offered.contains(rule.name())) {
            throw new FaultSyntaxException("on=" + rule.point().word() + ":" + rule.name() + " names no "
                    + rule.point().word() + " call of this emulator: one of " + String.join(", ",
                    new java.util.TreeSet<>(offered)));
        }
        int id;
        synchronized (this) {
            id = (int) nextId++;
        }
        Armed armed = new Armed(id, rule);
        if (rule.point() == Point.EVENT) {
            raise(armed, target);
        } else if (rule.point() == Point.LINK) {
            flap(armed);
        }
        synchronized (this) {
            List<Armed> next = new ArrayList<>(rules);
            next.add(armed);
            replace(next);
        }
        LOG.log(System.Logger.Level.INFO, "fault rule {0} added: {1}", id, rule);
        return id;
    }

    /** on=packet: a node= naming no node of the fabric would never be hit, so it is refused. */
    private void packetNode(FaultRule rule) throws FaultSyntaxException {
        String id = rule.scope().get("node");
        Fabric f = fabric;
        if (id == null || f == null) {
            return;
        }
        if (f.node(id).isEmpty()) {
            throw new FaultSyntaxException("node=" + id + ": no node '" + id + "' in the fabric");
        }
    }

    /** The HCA a rule names with dev=, or the only one. */
    private Hca hca(FaultRule rule) throws FaultSyntaxException {
        String dev = rule.scope().get("dev");
        if (dev != null) {
            Hca h = hcas.get(dev);
            if (h == null) {
                throw new FaultSyntaxException("dev=" + dev + " is no local HCA: one of " + String.join(", ",
                        new java.util.TreeSet<>(hcas.keySet())));
            }
            return h;
        }
        if (rule.point() == Point.EVENT && hcas.size() != 1) {
            throw new FaultSyntaxException("on=event needs dev=NAME: this instance has " + hcas.size()
                    + " local HCAs (" + String.join(", ", new java.util.TreeSet<>(hcas.keySet())) + ")");
        }
        return rule.point() == Point.EVENT ? hcas.values().iterator().next() : null;
    }

    /** on=event: the event, raised once; the rule then stays listed with its one hit. */
    private void raise(Armed armed, Hca hca) throws FaultSyntaxException {
        FaultRule r = armed.rule;
        String qpn = r.scope().get("qpn");
        String port = r.scope().get("port");
        try {
            hca.raise(r.event(), qpn == null ? -1 : Integer.parseInt(qpn), port == null ? 1 : Integer.parseInt(port));
        } catch (IllegalArgumentException e) {
            throw new FaultSyntaxException(r.event() + " cannot be raised: " + e.getMessage()
                    + (qpn == null && e.getMessage().contains("no QP") ? " (give the QP with qpn=N)" : ""));
        }
        armed.decide();
        LOG.log(System.Logger.Level.INFO, "fault rule {0} raised {1} on {2}{3}{4}", armed.id, r.event(),
                hca.local().name(), qpn == null ? "" : " qpn=" + qpn, port == null ? "" : " port=" + port);
    }

    /**
     * on=link: the cable out now and back in after flap= (both ends Down, then training to
     * LinkUp/Init; the port events and traps are the fabric's own, as for ctl link cut/restore).
     */
    private void flap(Armed armed) throws FaultSyntaxException {
        FaultRule r = armed.rule;
        String link = r.scope().get("link");
        int slash = link.lastIndexOf('/');
        Fabric f = fabric;
        Node node = f == null ? null : f.node(link.substring(0, slash)).orElse(null);
        if (node == null) {
            throw new FaultSyntaxException("link=" + link + ": no node '" + link.substring(0, slash) + "' in the fabric");
        }
        Port port;
        try {
            port = node.port(Integer.parseInt(link.substring(slash + 1)));
            port.cut();
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new FaultSyntaxException("link=" + link + ": " + e.getMessage());
        }
        armed.decide();
        LOG.log(System.Logger.Level.INFO, "fault rule {0} cut {1} for {2} ms", armed.id, port, r.flap().toMillis());
        timer().schedule(() -> {
            try {
                port.restore();
                LOG.log(System.Logger.Level.INFO, "fault rule {0} restored {1}", armed.id, port);
            } catch (IllegalStateException e) {
                // restored or unplugged by hand meanwhile: nothing to plug back
                LOG.log(System.Logger.Level.INFO, "fault rule {0}: {1}", armed.id, e.getMessage());
            }
        }, r.flap().toNanos(), TimeUnit.NANOSECONDS);
    }

    private synchronized ScheduledExecutorService timer() {
        if (timer == null) {
            timer = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "fault-timer");
                t.setDaemon(true);
                return t;
            });
        }
        return timer;
    }

    /** The fault point of a send completion (under the model lock): the status of the first rule that hits it. */
    private int completion(Hca hca, QueuePair qp, SendWorkRequest wr, int status) {
        List<Armed> now = at(Point.WC);
        if (now.isEmpty()) {
            return status;
        }
        Facts facts = key -> switch (key) {
            case "dev" -> hca.local().name();
            case "qpn" -> Integer.toString(qp.qpNum());
            case "opcode" -> FaultRule.opcodeName(wr.opcode());
            case "side" -> "send";
            default -> null;
        };
        for (Armed a : now) {
            if (scoped(a.rule, facts) && a.decide()) {
                LOG.log(System.Logger.Level.INFO, "fault rule {0} hit wc dev={1} qpn={2} opcode={3} wr_id={4}: status {5}",
                        a.id, hca.local().name(), qp.qpNum(), FaultRule.opcodeName(wr.opcode()),
                        Long.toUnsignedString(wr.wrId()), FaultRule.statusName(a.rule.status()));
                return a.rule.status();
            }
        }
        return status;
    }

    /** The fault point of a receive completion (under the model lock): the status of the first side=recv rule that hits it. */
    private int receipt(Hca hca, QueuePair qp, WorkCompletion wc) {
        List<Armed> now = at(Point.WC);
        if (now.isEmpty()) {
            return wc.status();
        }
        Facts facts = key -> switch (key) {
            case "dev" -> hca.local().name();
            case "qpn" -> Integer.toString(qp.qpNum());
            case "side" -> "recv";
            default -> null; // opcode= names a send WR's opcode: a receive has none
        };
        for (Armed a : now) {
            // a rule without side= stays with send completions, as before receives could be hit
            if ("recv".equals(a.rule.scope().get("side")) && scoped(a.rule, facts)
                    && a.decide()) {
                LOG.log(System.Logger.Level.INFO, "fault rule {0} hit wc side=recv dev={1} qpn={2} wr_id={3}: status {4}",
                        a.id, hca.local().name(), qp.qpNum(), Long.toUnsignedString(wc.wrId()),
                        FaultRule.statusName(a.rule.status()));
                return a.rule.status();
            }
        }
        return wc.status();
    }

    /** True while no rule is armed: a hot point may then skip describing its event. */
    public boolean none() {
        return rules.isEmpty();
    }

    private List<Armed> at(Point point) {
        return byPoint.getOrDefault(point, List.of());
    }

    /** Each rule as {@code ID hits=N matched=M RULE}, in the order added. */
    public List<String> list() {
        return rules.stream().map(Armed::line).toList();
    }

    /** Removes every rule; how many went. */
    public synchronized int clear() {
        int n = rules.size();
        replace(List.of());
        return n;
    }

    /** Removes rule {@code id}; false if there is none. */
    public synchronized boolean clear(int id) {
        List<Armed> next = new ArrayList<>(rules);
        boolean removed = next.removeIf(a -> a.id == id);
        replace(next);
        return removed;
    }

    /** The new table (under this), and its rules by point. */
    private void replace(List<Armed> next) {
        Map<Point, List<Armed>> grouped = new EnumMap<>(Point.class);
        for (Armed a : next) {
            grouped.computeIfAbsent(a.rule.point(), p -> new ArrayList<>()).add(a);
        }
        grouped.replaceAll((p, l) -> List.copyOf(l));
        rules = List.copyOf(next);
        byPoint = grouped;
    }

    /**
     * The fault point of a call (a uverbs command): throws the errno of the first rule
     * that hits it, before the call has changed anything. {@code name}: the call's kernel name; an
     * extended uverbs command (EX_CREATE_QP) is the same verb as its plain one.
     */
    public void failCall(Point point, String name, Facts facts) throws Errno {
        for (Armed a : at(point)) {
            FaultRule r = a.rule;
            if (names(r, name) && scoped(r, facts) && a.decide()) {
                LOG.log(System.Logger.Level.INFO, "fault rule {0} hit {1}:{2}{3}: errno {4}", a.id, point.word(), name,
                        describe(r, facts), FaultRule.errnoName(r.errno()));
                throw Errno.of(r.errno());
            }
        }
    }

    private static boolean names(FaultRule r, String name) {
        return r.name() == null || r.name().equals(name) || ("EX_" + r.name()).equals(name);
    }

    private static boolean scoped(FaultRule r, Facts facts) {
        for (Map.Entry<String, String> e : r.scope().entrySet()) {
            if (!e.getValue().equals(facts.get(e.getKey()))) {
                return false;
            }
        }
        return true;
    }

    /** The event's facts the log line names: pid and comm when known. */
    private static String describe(FaultRule r, Facts facts) {
        StringBuilder b = new StringBuilder();
        for (String k : new String[] {"dev", "port", "pid", "comm"}) {
            if (r.point().scopes.contains(k)) {
                String v = facts.get(k);
                if (v != null) {
                    b.append(' ').append(k).append('=').append(v);
                }
            }
        }
        return b.toString();
    }
}
