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

    /** The environment a RUN program gets: the properties as KEY=VALUE (udev_event_spawn). */
    public Map<String, String> environment() {
        return properties;
    }
}
