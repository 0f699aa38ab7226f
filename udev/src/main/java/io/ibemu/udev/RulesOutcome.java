package io.ibemu.udev;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What systemd's rules engine decided for one event, as `udevadm test --action=A SYSPATH` prints
 * it (systemd 252, src/udev/udevadm-test.c): the device's properties after the rules (KEY=VALUE
 * lines, what udevd hands a RUN program as its environment), the RUN list ("run: '...'", in rule
 * order, already formatted), and the engine's own log lines about this device ("SYSNAME: ...",
 * where PROGRAM results, MODE/OWNER/GROUP, links and permissions show).
 */
public record RulesOutcome(Map<String, String> properties, List<String> run, List<String> log) {

    private static final String RUN_PREFIX = "run: '";

    public RulesOutcome {
        properties = Collections.unmodifiableMap(new LinkedHashMap<>(properties));
        run = List.copyOf(run);
        log = List.copyOf(log);
    }

    /** {@code out}: udevadm's standard output; {@code err}: its log; {@code sysname}: the device's last path element. */
    public static RulesOutcome parse(String out, String err, String sysname) {
        Map<String, String> properties = new LinkedHashMap<>();
        List<String> run = new ArrayList<>();
        for (String line : out.split("\n")) {
            if (line.startsWith(RUN_PREFIX) && line.endsWith("'")) {
                run.add(line.substring(RUN_PREFIX.length(), line.length() - 1));
            } else {
                int eq = line.indexOf('=');
                if (eq > 0 && line.substring(0, eq).matches("[A-Za-z0-9_.]+")) {
                    properties.put(line.substring(0, eq), line.substring(eq + 1));
                }
            }
        }
        List<String> log = new ArrayList<>();
        String prefix = sysname + ": ";
        for (String line : err.split("\n")) {
            if (line.startsWith(prefix)) {
                log.add(line.substring(prefix.length()));
            }
        }
        return new RulesOutcome(properties, run, log);
    }

    /** DEVLINKS: the symlinks the rules gave the node, which udevadm made. */
    public List<String> links() {
        String links = properties.get("DEVLINKS");
        return links == null || links.isBlank() ? List.of() : List.of(links.trim().split(" +"));
    }

    /** The last MODE the rules assigned (udevadm logs "FILE:LINE MODE 0660" for each one it applies), if any. */
    public java.util.OptionalInt mode() {
        return assigned("MODE", 8);
    }

    /** The last OWNER (a uid) the rules assigned, if any. */
    public java.util.OptionalInt owner() {
        return assigned("OWNER", 10);
    }

    /** The last GROUP (a gid) the rules assigned, if any. */
    public java.util.OptionalInt group() {
        return assigned("GROUP", 10);
    }

    /** udevadm found no device node at DEVNAME (not a char or block node), so it applied no MODE/OWNER/GROUP. */
    public boolean nodeSkipped() {
        return log.stream().anyMatch(l -> l.startsWith("Device node ") && l.endsWith(" is missing, skipping handling."));
    }

    private java.util.OptionalInt assigned(String key, int radix) {
        java.util.regex.Pattern p = java.util.regex.Pattern.compile(":\\d+ " + key + " (\\d+)$");
        java.util.OptionalInt last = java.util.OptionalInt.empty();
        for (String line : log) {
            java.util.regex.Matcher m = p.matcher(line);
            if (m.find()) {
                last = java.util.OptionalInt.of(Integer.parseInt(m.group(1), radix));
            }
        }
        return last;
    }

    /** The environment a RUN program gets: the properties as KEY=VALUE (udev_event_spawn). */
    public Map<String, String> environment() {
        return properties;
    }
}
