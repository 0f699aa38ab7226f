package io.ibemu.emulator.fault;

import io.ibemu.emulator.hca.AsyncEvent;
import io.ibemu.emulator.hca.WcStatus;
import io.ibemu.emulator.hca.WrOpcode;
import io.ibemu.kernel.Errno;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One fault rule as written: {@code key=value} words saying what (on=), where (dev=, pid=, ...),
 * when (nth=, every=, prob= seed=, count=, after=, for=) and the effect (errno=, ...). Immutable;
 * {@link #parse} refuses a rule with one line naming the word that is wrong.
 *
 * @param point  what the rule acts on
 * @param name   the command or call at the point ({@code CREATE_QP}, {@code write}), null for any
 * @param scope  where: the scoping keys and the values an event must carry, in the order written
 * @param nth    only the nth matching event (1-based), 0 for any
 * @param every  only every nth matching event, 0 for each
 * @param prob   the chance that a matching event is hit, 1 without prob=
 * @param seed   the seed of the rule's own generator, advanced once per matching event
 * @param count  at most this many hits, 0 for no limit
 * @param after  matching starts this long after the rule was added
 * @param lasting matching stops this long after it started ({@code for=}), null for ever
 * @param errno  the errno a failed call returns, 0 for none
 * @param status the completion status a work request gets (ibv_wc_status), -1 for none
 * @param event  the asynchronous event raised, null for none
 * @param flap   how long a flapped cable stays out, null for none
 * @param harm   what happens to a packet or MAD on its cable, null for nothing
 * @param delay  how much later a MAD arrives, null for no delay
 */
public record FaultRule(Point point, String name, Map<String, String> scope, long nth, long every, double prob,
                        long seed, long count, Duration after, Duration lasting, int errno, int status,
                        AsyncEvent.Type event, Duration flap, Harm harm, Duration delay) {

    /** What a cable does to a packet it hits: the words of the grammar, valueless. */
    public enum Harm {
        /** Lost on the way. */
        DROP,
        /** Arrives twice. */
        DUP,
        /** Arrives with a bad ICRC/VCRC: the receiver discards it and counts PortRcvErrors. */
        CORRUPT,
        /** Arrives after the packet behind it. */
        REORDER;

        String word() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Every key of the grammar, so that a key the point does not take is told apart from a typo. */
    private static final Set<String> WHERE = Set.of("dev", "port", "node", "link", "pid", "comm", "qpn", "opcode",
            "class", "attr", "method", "side");
    private static final Set<String> WHEN = Set.of("nth", "every", "prob", "seed", "count", "after", "for");
    private static final Set<String> EFFECTS = Set.of("errno", "delay", "status", "drop", "dup", "corrupt",
            "reorder", "event", "flap");
    private static final Pattern DURATION = Pattern.compile("(\\d{1,9})(us|ms|s|m)");
    private static final Map<String, Integer> ERRNOS = constants(Errno.class, "E");
    /** ibv_wc_status by name; SUCCESS is no fault. */
    private static final Map<String, Integer> STATUSES = without(constants(WcStatus.class, ""), "SUCCESS");
    /** ibv_wr_opcode by name, for opcode=. */
    private static final Map<String, Integer> OPCODES = without(constants(WrOpcode.class, ""), "FLAG_");

    public FaultRule {
        scope = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(scope));
    }

    /** The rule read from its words (split at white space); one clear line if it is malformed. */
    public static FaultRule parse(String text) throws FaultSyntaxException {
        String[] words = text.strip().split("\\s+");
        if (text.isBlank()) {
            throw new FaultSyntaxException("empty rule: write at least on=POINT and an effect, "
                    + "e.g. on=uverbs:CREATE_QP errno=ENOMEM nth=1");
        }
        Map<String, String> pairs = new LinkedHashMap<>();
        for (String w : words) {
            int eq = w.indexOf('=');
            String key = (eq < 0 ? w : w.substring(0, eq)).toLowerCase(Locale.ROOT);
            String value = eq < 0 ? null : w.substring(eq + 1);
            if (key.isEmpty()) {
                throw new FaultSyntaxException("'" + w + "' has no key: write key=value");
            }
            if (!key.equals("on") && !WHERE.contains(key) && !WHEN.contains(key) && !EFFECTS.contains(key)) {
                throw new FaultSyntaxException("unknown key '" + key + "' in '" + w + "': a rule takes on=, where "
                        + String.join("= ", new TreeMap<>(asMap(WHERE)).keySet()) + "=, when "
                        + String.join("= ", new TreeMap<>(asMap(WHEN)).keySet()) + "= and an effect");
            }
            if (value != null && value.isEmpty()) {
                throw new FaultSyntaxException("'" + w + "' has no value after '='");
            }
            if (pairs.containsKey(key)) {
                throw new FaultSyntaxException("'" + key + "' is given twice: give each key once");
            }
            pairs.put(key, value);
        }
        String on = pairs.remove("on");
        if (on == null) {
            throw new FaultSyntaxException("no on=: say what the rule acts on, e.g. on=uverbs:CREATE_QP");
        }
        int colon = on.indexOf(':');
        String pointWord = (colon < 0 ? on : on.substring(0, colon)).toLowerCase(Locale.ROOT);
        Point point = Point.of(pointWord);
        if (point == null) {
            throw new FaultSyntaxException("on=" + on + ": unknown point '" + pointWord + "': rules act on " + points());
        }
        String name = colon < 0 ? null : on.substring(colon + 1);
        if (point.named && (name == null || name.isEmpty())) {
            throw new FaultSyntaxException("on=" + pointWord + " needs a name: on=" + pointWord + ":NAME, e.g. "
                    + "on=uverbs:CREATE_QP");
        }
        if (!point.named && name != null) {
            throw new FaultSyntaxException("on=" + pointWord + " takes no ':NAME'");
        }
        if (name != null) {
            if (!name.matches("[A-Za-z][A-Za-z0-9_]*")) {
                throw new FaultSyntaxException("on=" + on + ": '" + name + "' is not a name (letters, digits, _)");
            }
            // uverbs commands by their kernel (upper-case) names, umad by its calls' (write, read, ioctl)
            name = point == Point.UMAD ? name.toLowerCase(Locale.ROOT) : name.toUpperCase(Locale.ROOT);
        }
        Map<String, String> scope = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : pairs.entrySet()) {
            String key = e.getKey();
            if (WHERE.contains(key)) {
                if (!point.scopes.contains(key)) {
                    throw new FaultSyntaxException(key + "= does not apply to on=" + point.word + " (it takes "
                            + String.join("=, ", point.scopes.stream().sorted().toList()) + "=)");
                }
                scope.put(key, where(key, value(pairs, key)));
            } else if (EFFECTS.contains(key) && !point.effects.contains(key)) {
                throw new FaultSyntaxException("'" + key + "' is no effect of on=" + point.word + " (it takes "
                        + String.join(", ", point.effects.stream().sorted().toList()) + ")");
            }
        }
        long nth = number(pairs, "nth");
        long every = number(pairs, "every");
        long count = number(pairs, "count");
        double prob = 1;
        if (pairs.containsKey("prob")) {
            prob = probability(value(pairs, "prob"));
        }
        long seed = 0;
        if (pairs.containsKey("seed")) {
            if (!pairs.containsKey("prob")) {
                throw new FaultSyntaxException("seed= without prob= changes nothing: add prob=P (0..1 or a %)");
            }
            seed = integer("seed", pairs.get("seed"), Long.MIN_VALUE);
        }
        Duration after = duration(pairs, "after");
        Duration lasting = duration(pairs, "for");
        int errno = 0;
        if (pairs.containsKey("errno")) {
            String v = value(pairs, "errno");
            Integer code = ERRNOS.get(v.toUpperCase(Locale.ROOT));
            if (code == null) {
                throw new FaultSyntaxException("errno=" + v + " is not an errno this emulator knows: one of "
                        + String.join(", ", new TreeMap<>(ERRNOS).keySet()));
            }
            errno = code;
        }
        int status = -1;
        if (pairs.containsKey("status")) {
            String v = value(pairs, "status").toUpperCase(Locale.ROOT);
            Integer code = STATUSES.get(v.startsWith("IBV_WC_") ? v.substring(7) : v);
            if (code == null) {
                throw new FaultSyntaxException("status=" + value(pairs, "status") + " is no error completion status: one of "
                        + String.join(", ", STATUSES.keySet()));
            }
            status = code;
        }
        AsyncEvent.Type event = null;
        if (pairs.containsKey("event")) {
            String v = value(pairs, "event").toUpperCase(Locale.ROOT);
            try {
                event = AsyncEvent.Type.valueOf(v.startsWith("IBV_EVENT_") ? v.substring(10) : v);
            } catch (IllegalArgumentException e) {
                throw new FaultSyntaxException("event=" + value(pairs, "event") + " is no asynchronous event: one of "
                        + String.join(", ", java.util.Arrays.stream(AsyncEvent.Type.values()).map(Enum::name).toList()));
            }
        }
        Duration flap = duration(pairs, "flap");
        if (point == Point.LINK && !scope.containsKey("link")) {
            throw new FaultSyntaxException("on=link needs link=NODE/PORT, e.g. link=local/1");
        }
        if (scope.containsKey("link") && !scope.get("link").matches(".+/\\d{1,3}")) {
            throw new FaultSyntaxException("link=" + scope.get("link") + " is not NODE/PORT, e.g. link=local/1");
        }
        Harm harm = null;
        for (Harm h : Harm.values()) {
            if (pairs.containsKey(h.word())) {
                if (pairs.get(h.word()) != null) {
                    throw new FaultSyntaxException(h.word() + " takes no value: write " + h.word());
                }
                if (harm != null) {
                    throw new FaultSyntaxException(harm.word() + " and " + h.word() + " together: a rule does one "
                            + "thing to a packet (write two rules)");
                }
                harm = h;
            }
        }
        Duration delay = duration(pairs, "delay");
        if (delay != null && harm != null) {
            throw new FaultSyntaxException("delay= and " + harm.word() + " together: a rule does one thing to a "
                    + "packet (write two rules)");
        }
        if (errno == 0 && status < 0 && event == null && flap == null && harm == null && delay == null) {
            throw new FaultSyntaxException("on=" + point.word + " needs an effect: " + switch (point) {
                case UVERBS, UMAD -> "errno=E, e.g. errno=ENOMEM";
                case WC -> "status=S, e.g. status=RETRY_EXC_ERR";
                case EVENT -> "event=T, e.g. event=QP_FATAL";
                case LINK -> "flap=DURATION, e.g. flap=2s";
                case MAD -> "drop, dup, corrupt or delay=DURATION";
                case PACKET -> "drop, dup, corrupt or reorder";
                case UCMA -> "errno=E, e.g. errno=ENODEV";
            });
        }
        if (point.once) {
            for (String k : WHEN) {
                if (pairs.containsKey(k)) {
                    throw new FaultSyntaxException(k + "= does not apply to on=" + point.word
                            + ": it acts once, when the rule is added");
                }
            }
        }
        return new FaultRule(point, name, scope, nth, every, prob, seed, count, after == null ? Duration.ZERO : after,
                lasting, errno, status, event, flap, harm, delay);
    }

    /** The rule in its canonical words: what {@link #parse} reads back to an equal rule. */
    @Override
    public String toString() {
        List<String> w = new ArrayList<>();
        w.add("on=" + point.word + (name == null ? "" : ":" + name));
        scope.forEach((k, v) -> w.add(k + "=" + v));
        if (errno != 0) {
            w.add("errno=" + errnoName(errno));
        }
        if (status >= 0) {
            w.add("status=" + statusName(status));
        }
        if (event != null) {
            w.add("event=" + event.name());
        }
        if (flap != null) {
            w.add("flap=" + flap.toMillis() + "ms");
        }
        if (harm != null) {
            w.add(harm.word());
        }
        if (delay != null) {
            w.add("delay=" + micros(delay));
        }
        if (nth != 0) {
            w.add("nth=" + nth);
        }
        if (every != 0) {
            w.add("every=" + every);
        }
        if (prob != 1) {
            w.add("prob=" + prob);
            w.add("seed=" + seed);
        }
        if (count != 0) {
            w.add("count=" + count);
        }
        if (!after.isZero()) {
            w.add("after=" + after.toMillis() + "ms");
        }
        if (lasting != null) {
            w.add("for=" + lasting.toMillis() + "ms");
        }
        return String.join(" ", w);
    }

    /** A duration in the grammar's words, exactly: delay=500us reads back as 500us. */
    private static String micros(Duration d) {
        long us = d.toNanos() / 1000;
        return us % 1000 == 0 ? us / 1000 + "ms" : us + "us";
    }

    /** The errno's name as errno(3) spells it. */
    public static String errnoName(int code) {
        return nameOf(ERRNOS, code);
    }

    /** The completion status's name as ibv_wc_status spells it, without IBV_WC_. */
    public static String statusName(int code) {
        return nameOf(STATUSES, code);
    }

    /** The work request opcode's name as ibv_wr_opcode spells it, without IBV_WR_. */
    public static String opcodeName(int code) {
        return nameOf(OPCODES, code);
    }

    private static String nameOf(Map<String, Integer> names, int code) {
        return names.entrySet().stream().filter(e -> e.getValue() == code).map(Map.Entry::getKey).findFirst()
                .orElse(Integer.toString(code));
    }

    private static String where(String key, String value) throws FaultSyntaxException {
        return switch (key) {
            case "pid", "port", "qpn" -> Long.toString(integer(key, value, 0));
            case "class", "method" -> Long.toString(bounded(key, value, 0xff));
            case "attr" -> Long.toString(bounded(key, value, 0xffff));
            case "side" -> {
                String s = value.toLowerCase(Locale.ROOT);
                if (!s.equals("send") && !s.equals("recv")) {
                    throw new FaultSyntaxException("side=" + value + ": write side=send (a send WR's completion, the "
                            + "default) or side=recv (a receive's)");
                }
                yield s;
            }
            case "opcode" -> {
                String o = value.toUpperCase(Locale.ROOT);
                if (!OPCODES.containsKey(o)) {
                    throw new FaultSyntaxException("opcode=" + value + " is no work request opcode: one of "
                            + String.join(", ", OPCODES.keySet()));
                }
                yield o;
            }
            default -> value;
        };
    }

    private static String value(Map<String, String> pairs, String key) throws FaultSyntaxException {
        String v = pairs.get(key);
        if (v == null) {
            throw new FaultSyntaxException("'" + key + "' needs a value: " + key + "=...");
        }
        return v;
    }

    private static long number(Map<String, String> pairs, String key) throws FaultSyntaxException {
        if (!pairs.containsKey(key)) {
            return 0;
        }
        String v = value(pairs, key);
        return integer(key, v, 1);
    }

    private static long bounded(String key, String v, long max) throws FaultSyntaxException {
        long n = integer(key, v, 0);
        if (n > max) {
            throw new FaultSyntaxException(key + "=" + v + " is above " + max + " (0x" + Long.toHexString(max) + ")");
        }
        return n;
    }

    private static long integer(String key, String v, long min) throws FaultSyntaxException {
        try {
            long n = Long.decode(v);
            if (n < min) {
                throw new FaultSyntaxException(key + "=" + v + " is below " + min);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new FaultSyntaxException(key + "=" + v + " is not a whole number");
        }
    }

    private static double probability(String v) throws FaultSyntaxException {
        try {
            double p = v.endsWith("%") ? Double.parseDouble(v.substring(0, v.length() - 1)) / 100 : Double.parseDouble(v);
            if (!(p > 0 && p <= 1)) {
                throw new FaultSyntaxException("prob=" + v + " is not in (0, 1] (or (0%, 100%])");
            }
            return p;
        } catch (NumberFormatException e) {
            throw new FaultSyntaxException("prob=" + v + " is not a number: write 0.2 or 20%");
        }
    }

    private static Duration duration(Map<String, String> pairs, String key) throws FaultSyntaxException {
        if (!pairs.containsKey(key)) {
            return null;
        }
        String v = value(pairs, key);
        Matcher m = DURATION.matcher(v);
        if (!m.matches()) {
            throw new FaultSyntaxException(key + "=" + v + " is not a duration: a whole number and us, ms, s or m, "
                    + "e.g. " + key + "=500ms");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "us" -> Duration.ofNanos(n * 1000);
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            default -> Duration.ofMinutes(n);
        };
    }

    private static String points() {
        List<String> p = new ArrayList<>();
        for (Point x : Point.values()) {
            p.add("on=" + x.word + (x.named ? ":NAME" : ""));
        }
        return String.join(", ", p);
    }

    private static Map<String, Boolean> asMap(Set<String> s) {
        Map<String, Boolean> m = new TreeMap<>();
        s.forEach(k -> m.put(k, true));
        return m;
    }

    /** The public int constants of {@code holder} whose names start with {@code prefix}: one table, read as data. */
    private static Map<String, Integer> constants(Class<?> holder, String prefix) {
        Map<String, Integer> m = new TreeMap<>();
        for (Field f : holder.getFields()) {
            if (f.getType() == int.class && Modifier.isStatic(f.getModifiers()) && f.getName().startsWith(prefix)) {
                try {
                    m.put(f.getName(), f.getInt(null));
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        return java.util.Collections.unmodifiableMap(m);
    }

    private static Map<String, Integer> without(Map<String, Integer> m, String prefix) {
        Map<String, Integer> kept = new TreeMap<>(m);
        kept.keySet().removeIf(k -> k.startsWith(prefix));
        return java.util.Collections.unmodifiableMap(kept);
    }
}
