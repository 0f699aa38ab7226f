package io.ibemu.it;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The /sys/class/infiniband tree as seen inside an instance's namespace, read
 * in one command: every device's node attributes and every port's attributes,
 * gids and pkeys. Keys are paths below /sys/class/infiniband
 * ("mlx4_0/node_guid", "mlx4_0/ports/1/gids/0"); values without the newline.
 *
 * <p>Value formats are the kernel's (drivers/infiniband/core/sysfs.c): node_guid
 * "%04x:%04x:%04x:%04x", state "4: ACTIVE", phys_state "5: LinkUp", lid "0x%x",
 * cap_mask "0x%08x", gids/N as an IPv6 address written out in full, pkeys/N "0x%04x".
 */
public final class Sysfs {
    private static final String SCRIPT = """
            cd /sys/class/infiniband || exit 3
            for d in *; do
              [ -e "$d" ] || continue
              for f in node_guid sys_image_guid node_desc node_type fw_ver hw_rev hca_type board_id; do
                [ -r "$d/$f" ] && printf '%s/%s\\t%s\\n' "$d" "$f" "$(cat "$d/$f")"
              done
              for p in "$d"/ports/*; do
                for f in state phys_state lid sm_lid sm_sl lid_mask_count cap_mask rate link_layer; do
                  [ -r "$p/$f" ] && printf '%s/%s\\t%s\\n' "$p" "$f" "$(cat "$p/$f")"
                done
                for t in gids pkeys; do
                  for f in "$p/$t"/*; do
                    [ -r "$f" ] && printf '%s\\t%s\\n' "$f" "$(cat "$f")"
                  done
                done
              done
            done
            """;

    private final Map<String, String> files;

    private Sysfs(Map<String, String> files) {
        this.files = files;
    }

    /** Reads the tree inside the instance's namespace. */
    public static Sysfs read(Ibemu ib) {
        Result r = ib.sh(SCRIPT).assertOk();
        Map<String, String> m = new TreeMap<>();
        for (String line : r.stdout().split("\n")) {
            int tab = line.indexOf('\t');
            if (tab > 0) {
                m.put(line.substring(0, tab), line.substring(tab + 1));
            }
        }
        if (m.isEmpty()) {
            throw new AssertionError("no InfiniBand device in /sys/class/infiniband: " + r);
        }
        return new Sysfs(m);
    }

    public Map<String, String> files() {
        return files;
    }

    public List<String> devices() {
        TreeSet<String> d = new TreeSet<>();
        for (String k : files.keySet()) {
            d.add(k.substring(0, k.indexOf('/')));
        }
        return List.copyOf(d);
    }

    public List<Integer> ports(String dev) {
        TreeSet<Integer> p = new TreeSet<>();
        String prefix = dev + "/ports/";
        for (String k : files.keySet()) {
            if (k.startsWith(prefix)) {
                String rest = k.substring(prefix.length());
                p.add(Integer.parseInt(rest.substring(0, rest.indexOf('/'))));
            }
        }
        return List.copyOf(p);
    }

    /** A node attribute (e.g. "node_guid"); fails if absent. */
    public String get(String dev, String attr) {
        return require(dev + "/" + attr);
    }

    /** A port attribute (e.g. "state", "gids/0"); fails if absent. */
    public String port(String dev, int port, String attr) {
        return require(dev + "/ports/" + port + "/" + attr);
    }

    public boolean has(String path) {
        return files.containsKey(path);
    }

    private String require(String key) {
        String v = files.get(key);
        if (v == null) {
            throw new AssertionError("/sys/class/infiniband/" + key + " is missing or unreadable; have: " + files.keySet());
        }
        return v;
    }

    /** Table entries (gids or pkeys) in index order. */
    public List<String> table(String dev, int port, String table) {
        TreeMap<Integer, String> t = new TreeMap<>();
        String prefix = dev + "/ports/" + port + "/" + table + "/";
        files.forEach((k, v) -> {
            if (k.startsWith(prefix)) {
                t.put(Integer.parseInt(k.substring(prefix.length())), v);
            }
        });
        return new ArrayList<>(t.values());
    }

    public List<Integer> pkeys(String dev, int port) {
        return table(dev, port, "pkeys").stream().map(s -> Integer.decode(s.strip())).toList();
    }

    // ---- decoded values

    /** "0002:c903:00b3:f4e0" as a number. */
    public static long guid(String colonHex) {
        return Long.parseUnsignedLong(colonHex.replace(":", "").strip(), 16);
    }

    /** A GUID as the tools print it: 0x%016x. */
    public static String hex64(long v) {
        return String.format("0x%016x", v);
    }

    public long nodeGuid(String dev) {
        return guid(get(dev, "node_guid"));
    }

    public long sysImageGuid(String dev) {
        return guid(get(dev, "sys_image_guid"));
    }

    private static String gidHex(String gid) {
        String h = gid.replace(":", "").strip();
        if (h.length() != 32) {
            throw new AssertionError("not a full GID: '" + gid + "'");
        }
        return h;
    }

    /** Interface id (low 64 bits) of gids/0: the port GUID. */
    public long portGuid(String dev, int port) {
        return Long.parseUnsignedLong(gidHex(port(dev, port, "gids/0")).substring(16), 16);
    }

    /** Subnet prefix (high 64 bits) of gids/0. */
    public long gidPrefix(String dev, int port) {
        return Long.parseUnsignedLong(gidHex(port(dev, port, "gids/0")).substring(0, 16), 16);
    }

    /** The number before the colon of "2: INIT" / "5: LinkUp" / "1: CA". */
    public static int leadingNumber(String v) {
        int c = v.indexOf(':');
        return Integer.parseInt((c < 0 ? v : v.substring(0, c)).strip());
    }

    public int portState(String dev, int port) {
        return leadingNumber(port(dev, port, "state"));
    }

    public int physState(String dev, int port) {
        return leadingNumber(port(dev, port, "phys_state"));
    }

    public int lid(String dev, int port) {
        return Integer.decode(port(dev, port, "lid").strip());
    }

    public int smLid(String dev, int port) {
        return Integer.decode(port(dev, port, "sm_lid").strip());
    }

    public int lmc(String dev, int port) {
        return Integer.decode(port(dev, port, "lid_mask_count").strip());
    }

    public long capMask(String dev, int port) {
        return Long.decode(port(dev, port, "cap_mask").strip());
    }

    /** The device whose node_guid is {@code guid}; fails if none. */
    public String deviceWithNodeGuid(long guid) {
        for (String d : devices()) {
            if (nodeGuid(d) == guid) {
                return d;
            }
        }
        throw new AssertionError("no device in /sys/class/infiniband has node_guid " + hex64(guid) + ": " + files);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        files.forEach((k, v) -> b.append(k).append(" = ").append(v).append('\n'));
        return b.toString();
    }
}
