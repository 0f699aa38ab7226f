package io.ibemu.emulator.device;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The optional identity file: INI-like sections named by a node (the topology's id, quoted
 * name or 0x GUID) with {@code key = value} lines for {@link HcaIdentity}'s fields.
 * <pre>
 * [H-0002c90300000001]
 * name = mlx4_0
 * fw_ver = 2.42.5000
 * </pre>
 */
public final class IdentityFile {

    private IdentityFile() {
    }

    /** Overrides per node reference, in file order. */
    public static Map<String, Map<String, String>> read(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file);
        Map<String, Map<String, String>> sections = new LinkedHashMap<>();
        Map<String, String> current = null;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#") || line.startsWith(";")) {
                continue;
            }
            if (line.startsWith("[") && line.endsWith("]")) {
                String node = line.substring(1, line.length() - 1).strip();
                if (node.length() > 1 && node.startsWith("\"") && node.endsWith("\"")) {
                    node = node.substring(1, node.length() - 1);
                }
                current = sections.computeIfAbsent(node, k -> new LinkedHashMap<>());
                continue;
            }
            int eq = line.indexOf('=');
            if (current == null || eq < 0) {
                throw new IOException(file + ":" + (i + 1) + ": expected '[node]' or 'key = value', got '" + line + "'");
            }
            String key = line.substring(0, eq).strip();
            try {
                HcaIdentity.defaults(0).with(key, "");
            } catch (IllegalArgumentException e) {
                throw new IOException(file + ":" + (i + 1) + ": " + e.getMessage());
            }
            current.put(key, line.substring(eq + 1).strip());
        }
        return sections;
    }
}
