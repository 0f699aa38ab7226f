package io.ibemu.emulator.umad;

import io.ibemu.kernel.CField;
import io.ibemu.kernel.CStruct;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * umad's structures against /usr/include/rdma/ib_user_mad.h: each declared {@link CStruct}
 * compiled into a C program that prints the real sizeof and offsetof of every member.
 */
class UmadLayoutTest {

    @TempDir
    Path temp;

    @Test
    void layoutsMatchIbUserMadH() throws Exception {
        List<CStruct> structs = List.of(UmadHeader.LAYOUT, UmadHeader.LAYOUT_OLD, AgentRequest.V1.LAYOUT,
                AgentRequest.V2.LAYOUT);
        StringBuilder c = new StringBuilder(
                "#include <rdma/ib_user_mad.h>\n#include <stddef.h>\n#include <stdio.h>\nint main(void) {\n");
        for (CStruct s : structs) {
            c.append("printf(\"").append(s.name()).append(" %zu\\n\", sizeof(struct ").append(s.name()).append("));\n");
            for (CField f : s.fields().values()) {
                c.append("printf(\"").append(s.name()).append('.').append(f.name())
                        .append(" %zu %zu\\n\", offsetof(struct ").append(s.name()).append(", ").append(f.name())
                        .append("), sizeof(((struct ").append(s.name()).append(" *)0)->").append(f.name())
                        .append("));\n");
            }
        }
        c.append("return 0;\n}\n");
        Path source = temp.resolve("umad.c");
        Files.writeString(source, c);
        Path binary = temp.resolve("umad");
        run(List.of("gcc", "-Wall", "-o", binary.toString(), source.toString()));
        Map<String, String> real = new HashMap<>();
        for (String line : run(List.of(binary.toString())).split("\n")) {
            int space = line.indexOf(' ');
            real.put(line.substring(0, space), line.substring(space + 1));
        }
        for (CStruct s : structs) {
            assertEquals(Integer.toString(s.size()), real.get(s.name()), "sizeof(struct " + s.name() + ")");
            for (CField f : s.fields().values()) {
                assertEquals(f.offset() + " " + f.size(), real.get(s.name() + "." + f.name()),
                        s.name() + "." + f.name());
            }
        }
        assertEquals(64, UmadHeader.SIZE);
        assertEquals(56, UmadHeader.SIZE_OLD);
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), command + ": " + out);
        return out;
    }
}
