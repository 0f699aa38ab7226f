package io.ibemu.it;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One probe's TAP output from the kernel (scripts/kernel-vm, rxe) and from ibemu, compared
 * check by check. A check is compared when it ran on both (neither side skipped it for a need
 * its device lacks); it agrees when it passed on both. A check that passed on one side only, or
 * failed on both (the probe's rule is not the kernel's), or whose answers differ (fuzz.c's
 * "# answer"), is a disagreement unless it is one of the {@link #DEVIATIONS} or
 * {@link #DEVIATION_KINDS} ibemu makes on purpose.
 */
public record Conformance(String probe, Map<String, Outcome> kernel, Map<String, Outcome> ibemu) {
    private static final Pattern LINE = Pattern.compile("^(not ok|ok)\\s+\\d+\\s+-\\s+(.*)$");
    private static final Pattern SKIP = Pattern.compile("^(.*?)\\s*# SKIP\\s*(.*)$");
    private static final Pattern SKIP_ALL = Pattern.compile("^1\\.\\.0\\s*# SKIP\\s*(.*)$");
    /** The device's answer a check carries (fuzz.c's cases): "... # answer EINVAL" at the end of the line. */
    private static final Pattern ANSWER = Pattern.compile("^(.*?)\\s*# answer (\\S+)$");

    /**
     * Checks where ibemu differs from the kernel by design: probe and description, and why.
     * Each is a decision in docs/decisions.md; an entry here never hides a bug.
     */
    static final Map<String, String> DEVIATIONS = Map.of();

    /**
     * Deviations of a kind rather than of one check (the fuzz corpus draws its cases from a seed):
     * a pattern over "probe: check", and why.
     */
    static final Map<Pattern, String> DEVIATION_KINDS = Map.of(
            Pattern.compile("fuzz: (umad|issm) [0-9.]+: (read|write) of 0 (random )?bytes"),
            "FUSE answers a zero-length read or write itself (fuse_direct_io sends no request for"
                    + " 0 bytes), so the driver's EINVAL (ib_umad_read/ib_umad_write: shorter than the"
                    + " header; issm has no read or write, vfs_read/vfs_write) cannot be given"
                    + " (decisions: \"Fuzz corpus: zero-length transfers\")");

    /** Why ibemu deviates on purpose at this "probe: check", or null. */
    static String deviation(String key) {
        String exact = DEVIATIONS.get(key);
        if (exact != null) {
            return exact;
        }
        return DEVIATION_KINDS.entrySet().stream().filter(d -> d.getKey().matcher(key).matches())
                .map(Map.Entry::getValue).findFirst().orElse(null);
    }

    /**
     * Disagreements found and not yet resolved: the kernel's rule is not known well enough to
     * change ibemu (the kernel source of that path has not been read yet). Listed so that CI stays
     * a guard against new ones; each entry is an open bug, reported in docs/conformance.md.
     */
    static final Map<String, String> OPEN = Map.of();

    /**
     * PASS, FAIL (with the probe's detail) or SKIP (with the need), or ABSENT; with the device's
     * answer (an errno name or a return value) when the check reports one, else "".
     */
    public record Outcome(Kind kind, String detail, String answer) {
        public enum Kind { PASS, FAIL, SKIP, ABSENT }

        static final Outcome ABSENT_OUTCOME = new Outcome(Kind.ABSENT, "");

        public Outcome(Kind kind, String detail) {
            this(kind, detail, "");
        }

        String cell() {
            String a = answer.isEmpty() ? "" : " (" + answer + ")";
            return switch (kind) {
                case PASS -> "ok" + a;
                case FAIL -> "**not ok**" + a + (detail.isEmpty() ? "" : ": " + detail);
                case SKIP -> "skip (" + detail + ")";
                case ABSENT -> "—";
            };
        }
    }

    /** How one check compares. */
    public enum Verdict { AGREE, DEVIATION, OPEN, DISAGREE, NOT_COMPARED }

    /**
     * Checks in order, keyed by description (a repeated description gets " #2", " #3"...).
     * A skip-all plan ("1..0 # SKIP why") gives one entry "(whole probe)".
     */
    public static Map<String, Outcome> parse(String tap) {
        Map<String, Outcome> out = new LinkedHashMap<>();
        Map<String, Integer> seen = new HashMap<>();
        for (String line : tap.split("\n")) {
            Matcher all = SKIP_ALL.matcher(line);
            if (all.matches()) {
                out.put("(whole probe)", new Outcome(Outcome.Kind.SKIP, all.group(1)));
                continue;
            }
            Matcher m = LINE.matcher(line);
            if (!m.matches()) {
                continue;
            }
            String rest = m.group(2);
            String answer = "";
            Matcher a = ANSWER.matcher(rest);
            if (a.matches()) {
                rest = a.group(1);
                answer = a.group(2);
            }
            Outcome o;
            String desc;
            Matcher s = SKIP.matcher(rest);
            if (m.group(1).equals("ok") && s.matches()) {
                desc = s.group(1);
                o = new Outcome(Outcome.Kind.SKIP, s.group(2));
            } else if (m.group(1).equals("ok")) {
                desc = rest;
                o = new Outcome(Outcome.Kind.PASS, "", answer);
            } else {
                // "desc: detail"; a description may hold ": " itself, the probe's detail starts at "got"
                int at = rest.indexOf(": got ");
                if (at < 0) {
                    at = rest.lastIndexOf(": ");
                }
                desc = at < 0 ? rest : rest.substring(0, at);
                o = new Outcome(Outcome.Kind.FAIL, at < 0 ? "" : rest.substring(at + 2), answer);
            }
            int n = seen.merge(desc, 1, Integer::sum);
            out.put(n == 1 ? desc : desc + " #" + n, o);
        }
        return out;
    }

    public static Conformance of(String probe, String kernelTap, String ibemuTap) {
        return new Conformance(probe, parse(kernelTap), parse(ibemuTap));
    }

    /** Every check of either side, kernel order first. */
    public List<String> checks() {
        Set<String> all = new LinkedHashSet<>(kernel.keySet());
        all.addAll(ibemu.keySet());
        return new ArrayList<>(all);
    }

    public Outcome kernel(String check) {
        return kernel.getOrDefault(check, Outcome.ABSENT_OUTCOME);
    }

    public Outcome ibemu(String check) {
        return ibemu.getOrDefault(check, Outcome.ABSENT_OUTCOME);
    }

    public Verdict verdict(String check) {
        Outcome k = kernel(check), e = ibemu(check);
        if (k.kind() == Outcome.Kind.SKIP || e.kind() == Outcome.Kind.SKIP
                || k.kind() == Outcome.Kind.ABSENT || e.kind() == Outcome.Kind.ABSENT) {
            return Verdict.NOT_COMPARED;
        }
        if (k.kind() == Outcome.Kind.PASS && e.kind() == Outcome.Kind.PASS && k.answer().equals(e.answer())) {
            return Verdict.AGREE;
        }
        String key = probe + ": " + check;
        return deviation(key) != null ? Verdict.DEVIATION : OPEN.containsKey(key) ? Verdict.OPEN : Verdict.DISAGREE;
    }

    public List<String> disagreements() {
        return checks().stream().filter(c -> verdict(c) == Verdict.DISAGREE)
                .map(c -> c + "\n      kernel: " + kernel(c).cell() + "\n      ibemu:  " + ibemu(c).cell())
                .toList();
    }

    public long count(Verdict v) {
        return checks().stream().filter(c -> verdict(c) == v).count();
    }

    /** This probe's section of docs/conformance.md. */
    public String markdown() {
        StringBuilder b = new StringBuilder();
        b.append("## ").append(probe).append("\n\n");
        b.append(count(Verdict.AGREE)).append(" agree, ").append(count(Verdict.DISAGREE)).append(" disagree, ")
                .append(count(Verdict.DEVIATION)).append(" deliberate deviations, ")
                .append(count(Verdict.OPEN)).append(" open disagreements, ")
                .append(count(Verdict.NOT_COMPARED)).append(" not compared.\n\n");
        b.append("| check | kernel (rxe) | ibemu | verdict |\n|---|---|---|---|\n");
        for (String c : checks()) {
            Verdict v = verdict(c);
            String note = switch (v) {
                case DEVIATION -> "deviation: " + deviation(probe + ": " + c);
                case OPEN -> OPEN.get(probe + ": " + c);
                default -> v.name().toLowerCase().replace('_', ' ');
            };
            b.append("| ").append(esc(c)).append(" | ").append(esc(kernel(c).cell())).append(" | ")
                    .append(esc(ibemu(c).cell())).append(" | ").append(esc(note)).append(" |\n");
        }
        return b.append('\n').toString();
    }

    private static String esc(String s) {
        return s.replace("|", "\\|");
    }
}
