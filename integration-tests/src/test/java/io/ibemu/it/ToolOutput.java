package io.ibemu.it;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parsers for what unmodified infiniband-diags print (formats from rdma-core 44:
 * infiniband-diags/ibstat.c, ibstatus, smpquery.c and libibmad's dump.c).
 */
public final class ToolOutput {
    private ToolOutput() {
    }

    /** One CA of {@code ibstat}: its header fields and, per port number, the port's fields. */
    public record Ca(String name, Map<String, String> fields, Map<Integer, Map<String, String>> ports) {
        public String field(String key) {
            String v = fields.get(key);
            if (v == null) {
                throw new AssertionError("ibstat: CA '" + name + "' has no '" + key + "' line: " + fields);
            }
            return v;
        }

        public Map<String, String> port(int n) {
            Map<String, String> p = ports.get(n);
            if (p == null) {
                throw new AssertionError("ibstat: CA '" + name + "' has no Port " + n + ": " + ports.keySet());
            }
            return p;
        }
    }

    private static final Pattern CA_HEAD = Pattern.compile("^(?:CA|Switch|Router|\\S+) '(.*)'$");
    private static final Pattern PORT_HEAD = Pattern.compile("^\\s*Port (\\d+):$");
    private static final Pattern KV = Pattern.compile("^\\s*([^:]+):\\s?(.*)$");

    /**
     * {@code ibstat} or {@code ibstat DEV}:
     * <pre>
     * CA 'mlx4_0'
     * 	CA type: MT4099
     * 	Number of ports: 1
     * 	...
     * 	Port 1:
     * 		State: Active
     * 		...
     * </pre>
     */
    public static List<Ca> ibstat(String out) {
        List<Ca> cas = new ArrayList<>();
        String name = null;
        Map<String, String> fields = null;
        Map<Integer, Map<String, String>> ports = null;
        Map<String, String> port = null;
        for (String line : out.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            Matcher m;
            if (!line.startsWith("\t") && (m = CA_HEAD.matcher(line)).matches()) {
                if (name != null) {
                    cas.add(new Ca(name, fields, ports));
                }
                name = m.group(1);
                fields = new LinkedHashMap<>();
                ports = new TreeMap<>();
                port = null;
            } else if ((m = PORT_HEAD.matcher(line)).matches() && ports != null) {
                port = new LinkedHashMap<>();
                ports.put(Integer.parseInt(m.group(1)), port);
            } else if ((m = KV.matcher(line)).matches() && fields != null) {
                (port != null && line.startsWith("\t\t") ? port : fields).put(m.group(1).strip(), m.group(2).strip());
            }
        }
        if (name != null) {
            cas.add(new Ca(name, fields, ports));
        }
        return cas;
    }

    /**
     * {@code ibstat DEV PORT}: "CA: 'mlx4_0'", "Port 1:", then the port's fields
     * without indentation. Returns the fields, with the CA name under "CA".
     */
    public static Map<String, String> ibstatPort(String out) {
        Map<String, String> f = new LinkedHashMap<>();
        for (String line : out.split("\n")) {
            Matcher m;
            if (line.startsWith("CA: '") && line.endsWith("'")) {
                f.put("CA", line.substring(5, line.length() - 1));
            } else if ((m = PORT_HEAD.matcher(line)).matches()) {
                f.put("Port", m.group(1));
            } else if ((m = KV.matcher(line)).matches()) {
                f.put(m.group(1).strip(), m.group(2).strip());
            }
        }
        return f;
    }

    /** One "Infiniband device 'DEV' port N status:" block of {@code ibstatus}. */
    public record IbstatusPort(String device, int port, Map<String, String> fields) {
        public String field(String key) {
            String v = fields.get(key);
            if (v == null) {
                throw new AssertionError("ibstatus: " + device + " port " + port + " has no '" + key + "': " + fields);
            }
            return v;
        }
    }

    private static final Pattern IBSTATUS_HEAD = Pattern.compile("^Infiniband device '(.*)' port (\\d+) status:$");

    public static List<IbstatusPort> ibstatus(String out) {
        List<IbstatusPort> r = new ArrayList<>();
        Map<String, String> cur = null;
        for (String line : out.split("\n")) {
            Matcher m = IBSTATUS_HEAD.matcher(line);
            if (m.matches()) {
                cur = new LinkedHashMap<>();
                r.add(new IbstatusPort(m.group(1), Integer.parseInt(m.group(2)), cur));
            } else if (cur != null && line.startsWith("\t") && line.contains(":")) {
                int c = line.indexOf(':');
                cur.put(line.substring(0, c).strip(), line.substring(c + 1).strip());
            }
        }
        return r;
    }

    private static final Pattern SMP_FIELD = Pattern.compile("^(\\w+):\\.+(.*)$");

    /**
     * libibmad's field dump ({@code smpquery nodeinfo/portinfo}): "Name:....value"
     * lines, first occurrence of each name; continuation lines (CapMask's flag
     * names) are left out.
     */
    public static Map<String, String> smpFields(String out) {
        Map<String, String> f = new LinkedHashMap<>();
        for (String line : out.split("\n")) {
            Matcher m = SMP_FIELD.matcher(line);
            if (m.matches()) {
                f.putIfAbsent(m.group(1), m.group(2).strip());
            }
        }
        return f;
    }

    private static final Pattern TABLE_ROW = Pattern.compile("^\\s*(\\d+):((?:\\s+0x[0-9a-fA-F]+)+)\\s*$");

    /**
     * {@code smpquery pkeys} / {@code guidinfo} tables: rows "   0: 0xffff 0x0000 ..."
     * flattened in index order (the row label is the first entry's index).
     */
    public static List<Long> smpTable(String out) {
        TreeMap<Integer, List<Long>> rows = new TreeMap<>();
        for (String line : out.split("\n")) {
            Matcher m = TABLE_ROW.matcher(line);
            if (m.matches()) {
                List<Long> vals = new ArrayList<>();
                for (String v : m.group(2).strip().split("\\s+")) {
                    vals.add(Long.parseUnsignedLong(v.substring(2), 16));
                }
                rows.put(Integer.parseInt(m.group(1)), vals);
            }
        }
        List<Long> all = new ArrayList<>();
        rows.forEach((i, v) -> {
            if (i != all.size()) {
                throw new AssertionError("table row " + i + " after " + all.size() + " entries:\n" + out);
            }
            all.addAll(v);
        });
        return all;
    }

    /** "N pkeys capacity for this port" / "N guids capacity for this port": N, or -1. */
    public static int capacity(String out, String what) {
        Matcher m = Pattern.compile("(?m)^(\\d+) " + what + " capacity for this port$").matcher(out);
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }

    /** Parses 0x-hex or decimal as tools print them. */
    public static long number(String s) {
        String t = s.strip();
        return t.startsWith("0x") || t.startsWith("0X") ? Long.parseUnsignedLong(t.substring(2), 16) : Long.parseLong(t);
    }
}
