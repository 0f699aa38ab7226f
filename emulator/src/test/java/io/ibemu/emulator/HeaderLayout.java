package io.ibemu.emulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ibemu.kernel.CField;
import io.ibemu.kernel.CStruct;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Declared {@link CStruct}s against a uapi header: a C program compiled against it prints the
 * real sizeof of each struct and the offsetof and sizeof of every member declared.
 */
public final class HeaderLayout {

    private HeaderLayout() {
    }

    /** Asserts each struct's size and each member's offset and size as {@code header} (e.g. rdma/ib_user_mad.h) has them. */
    public static void assertMatches(Path temp, String header, List<CStruct> structs)
            throws IOException, InterruptedException {
        StringBuilder c = new StringBuilder("#include <" + header + ">\n#include <stddef.h>\n#include <stdio.h>\n"
                + "int main(void) {\n");
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
        Path source = temp.resolve("layout.c");
        Files.writeString(source, c);
        Path binary = temp.resolve("layout");
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
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), command + ": " + out);
        return out;
    }
}
