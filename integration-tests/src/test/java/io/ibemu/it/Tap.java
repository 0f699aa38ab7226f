package io.ibemu.it;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads TAP (Test Anything Protocol) output, as the C probes print it:
 * {@code ok N - desc}, {@code not ok N - desc: why}, {@code 1..N},
 * {@code Bail out! why}, {@code # diagnostics}.
 */
public record Tap(int planned, List<String> passed, List<String> failed, List<String> skipped, String bailOut) {
    private static final Pattern LINE = Pattern.compile("^(not ok|ok)\\b\\s*(\\d+)?\\s*-?\\s*(.*)$");
    private static final Pattern PLAN = Pattern.compile("^1\\.\\.(\\d+)");

    public static Tap parse(String output) {
        int planned = -1;
        List<String> passed = new ArrayList<>(), failed = new ArrayList<>(), skipped = new ArrayList<>();
        String bail = null;
        for (String line : output.split("\n")) {
            Matcher m = LINE.matcher(line);
            Matcher p = PLAN.matcher(line);
            if (m.matches()) {
                String desc = m.group(3);
                if (m.group(1).equals("not ok")) {
                    failed.add(line);
                } else if (desc.contains("# SKIP")) {
                    skipped.add(desc);
                } else {
                    passed.add(desc);
                }
            } else if (p.find()) {
                planned = Integer.parseInt(p.group(1));
            } else if (line.startsWith("Bail out!")) {
                bail = line;
            }
        }
        return new Tap(planned, List.copyOf(passed), List.copyOf(failed), List.copyOf(skipped), bail);
    }

    public int count() {
        return passed.size() + failed.size() + skipped.size();
    }

    /** True when the plan was printed, matched the count, nothing failed and nothing bailed out. */
    public boolean allPassed() {
        return bailOut == null && failed.isEmpty() && planned == count() && planned > 0;
    }

    /** Fails the test (with the failed lines and the whole result) unless the probe's TAP all passed and it exited 0. */
    public static Tap assertPassed(Result r) {
        Tap t = parse(r.stdout());
        if (!t.allPassed() || !r.ok()) {
            StringBuilder why = new StringBuilder();
            if (t.bailOut != null) {
                why.append("\n  ").append(t.bailOut);
            }
            if (t.planned != t.count()) {
                why.append("\n  plan 1..").append(t.planned).append(" but ").append(t.count()).append(" results");
            }
            for (String f : t.failed) {
                why.append("\n  ").append(f);
            }
            throw new AssertionError("probe failed:" + why + r);
        }
        return t;
    }
}
