package io.ibemu.emulator.rdmacm;

import io.ibemu.emulator.HeaderLayout;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ucma's structures against /usr/include/rdma/rdma_user_cm.h (and the ib_user_sa.h,
 * ib_user_verbs.h structs it embeds), the real sizeof and offsetof of every member.
 */
class UcmaLayoutTest {

    @TempDir
    Path temp;

    @Test
    void layoutsMatchRdmaUserCmH() throws Exception {
        HeaderLayout.assertMatches(temp, "rdma/rdma_user_cm.h", List.of(Ucma.CMD_HDR, Ucma.SOCKADDR_IN6,
                Ucma.CREATE_ID, Ucma.CREATE_ID_RESP, Ucma.DESTROY_ID, Ucma.DESTROY_ID_RESP, Ucma.BIND_IP, Ucma.BIND,
                Ucma.RESOLVE_IP, Ucma.RESOLVE_ADDR, Ucma.RESOLVE_ROUTE, Ucma.QUERY, Ucma.USER_PATH_REC,
                Ucma.PATH_REC_DATA, Ucma.QUERY_ROUTE_RESP, Ucma.QUERY_ADDR_RESP, Ucma.QUERY_PATH_RESP, Ucma.CONN_PARAM,
                Ucma.AH_ATTR, Ucma.UD_PARAM, Ucma.ECE, Ucma.CONNECT, Ucma.LISTEN, Ucma.ACCEPT, Ucma.REJECT,
                Ucma.DISCONNECT, Ucma.INIT_QP_ATTR, Ucma.NOTIFY, Ucma.JOIN_IP_MCAST, Ucma.JOIN_MCAST, Ucma.GET_EVENT,
                Ucma.EVENT_RESP, Ucma.SET_OPTION, Ucma.MIGRATE_ID, Ucma.MIGRATE_RESP, Ucma.QP_ATTR));
    }
}
