package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * node_desc holding quotes, backslashes, a newline and a byte that is not UTF-8, set through
 * sysfs (node_desc_store) and through {@code ctl node add}: {@code ctl dump} prints one line per
 * node, {@code topology check} accepts the dumped topology, and an instance loaded from it has
 * the same bytes in node_desc and the same descriptions in its own dump.
 */
class NodeDescriptionDumpTest {
    /** a"b\c, a newline, d, 0xFF, e; printf's octal escapes. */
    static final String LOCAL_DESC = "a\\042b\\134c\\nd\\377e";
    static final String LOCAL_HEX = "61 22 62 5c 63 0a 64 ff 65 0a";

    static String nodeDesc(Ibemu ib) {
        return ib.exec("od", "-An", "-tx1", "/sys/class/infiniband/ibemu0/node_desc").assertOk().stdout().strip();
    }

    /** The description of each node of a dump's status part, by node GUID. */
    static List<String> descriptions(String dump) {
        Matcher m = Pattern.compile("(?m)^\\w+ \\d+ \"[^\"]*\" guid (0x[0-9a-f]+) (\".*\")( local)?$").matcher(dump);
        List<String> out = new java.util.ArrayList<>();
        while (m.find()) {
            out.add(m.group(1) + " " + m.group(2));
        }
        out.sort(null);
        return out;
    }

    @Test
    void dumpedTopologyLoadsWithEveryDescriptionByteForByte() throws Exception {
        String dump;
        try (Ibemu ib = Ibemu.start()) {
            ib.exec("sh", "-c", "printf '" + LOCAL_DESC + "' > /sys/class/infiniband/ibemu0/node_desc").assertOk();
            assertEquals(LOCAL_HEX, nodeDesc(ib));
            Ibemu.ibemu("ctl", "--name", ib.name(), "node", "add", "Hca 1 \"n3\" # \"q\\\"uote\\\\ \\x41 end\\\\\"",
                    "[1] \"switch\"[4]").assertOk();
            dump = Ibemu.ibemu("ctl", "--name", ib.name(), "dump").assertOk().stdout();
        }
        List<String> before = descriptions(dump);
        assertEquals(5, before.size(), "one status line per node: " + dump);
        assertTrue(before.contains("0x0011750000000100 \"a\\\"b\\\\c\\x0ad\\xffe\""), before.toString());
        assertTrue(before.contains("0x0011750000000500 \"q\\\"uote\\\\ A end\\\\\""), before.toString());

        Path file = Ibemu.tmpDir().resolve("node-desc-dump.ibnetdiscover");
        Files.writeString(file, dump.substring(dump.indexOf("\n\n") + 2));
        Ibemu.ibemu("topology", "check", file.toString()).assertOk();
        try (Ibemu again = Ibemu.start("--topology", file.toString(), "--local", "H-0011750000000100")) {
            assertEquals(LOCAL_HEX, nodeDesc(again));
            assertEquals(before, descriptions(Ibemu.ibemu("ctl", "--name", again.name(), "dump").assertOk().stdout()));
            String smp = again.exec("smpquery", "-D", "nodedesc", "0").assertOk().stdout();
            assertTrue(smp.contains("a\"b\\c"), "the SMA sends the bytes: " + smp);
        }
    }
}
