package io.ibemu.emulator.rdmacm;

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
 * ucma.s structures against /usr/include/rdma/rdma_user_cm.h (and the ib_user_sa.h, ib_user_verbs.h structs it embeds): each declared {@link CStruct}
 * compiled into a C program that prints the real sizeof and offsetof of every member.
 */
class UcmaLayoutTest {

    @TempDir
    Path temp;

    @Test
    void layoutsMatchRdmaUserCmH() throws Exception {
        List<CStruct> structs = List.of(Ucma.CMD_HDR, Ucma.SOCKADDR_IN6, Ucma.CREATE_ID, Ucma.CREATE_ID_RESP,
                Ucma.DESTROY_ID, Ucma.DESTROY_ID_RESP, Ucma.BIND_IP, Ucma.BIND, Ucma.RESOLVE_IP, Ucma.RESOLVE_ADDR,
                Ucma.RESOLVE_ROUTE, Ucma.QUERY, Ucma.USER_PATH_REC, Ucma.PATH_REC_DATA, Ucma.QUERY_ROUTE_RESP,
                Ucma.QUERY_ADDR_RESP, Ucma.QUERY_PATH_RESP, Ucma.CONN_PARAM, Ucma.AH_ATTR, Ucma.UD_PARAM, Ucma.ECE,
                Ucma.CONNECT, Ucma.LISTEN, Ucma.ACCEPT, Ucma.REJECT, Ucma.DISCONNECT, Ucma.INIT_QP_ATTR, Ucma.NOTIFY,
                Ucma.JOIN_IP_MCAST, Ucma.JOIN_MCAST, Ucma.GET_EVENT, Ucma.EVENT_RESP, Ucma.SET_OPTION,
                Ucma.MIGRATE_ID, Ucma.MIGRATE_RESP, Ucma.QP_ATTR);
        StringBuilder c = new StringBuilder(
                "#include <rdma/rdma_user_cm.h>\n#include <stddef.h>\n#include <stdio.h>\nint main(void) {\n");
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
        Path source = temp.resolve("ucma.c");
        Files.writeString(source, c);
        Path binary = temp.resolve("ucma");
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
