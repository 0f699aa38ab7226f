package io.ibemu.emulator.rdmacm;

import io.ibemu.kernel.CStruct;
import io.ibemu.kernel.Errno;

/**
 * ucma.c's {@code ucma_cmd_table}, declared once: the slot of each RDMA_USER_CM_CMD_* number
 * holds its request struct, the response size checked first, and its handler. A slot left
 * empty is a command the kernel has no handler for (GET_OPTION): ENOSYS.
 */
final class UcmaCommands {

    private UcmaCommands() {
    }

    static final int CREATE_ID = 0, DESTROY_ID = 1, BIND_IP = 2, RESOLVE_IP = 3, RESOLVE_ROUTE = 4,
            QUERY_ROUTE = 5, CONNECT = 6, LISTEN = 7, ACCEPT = 8, REJECT = 9, DISCONNECT = 10, INIT_QP_ATTR = 11,
            GET_EVENT = 12, GET_OPTION = 13, SET_OPTION = 14, NOTIFY = 15, JOIN_IP_MCAST = 16, LEAVE_MCAST = 17,
            MIGRATE_ID = 18, QUERY = 19, BIND = 20, RESOLVE_ADDR = 21, JOIN_MCAST = 22;

    static final UcmaCommand[] TABLE = table(
            UcmaCommand.io(CREATE_ID, "CREATE_ID", Ucma.CREATE_ID, Ucma.CREATE_ID_RESP, UcmaCommands::createId),
            UcmaCommand.io(DESTROY_ID, "DESTROY_ID", Ucma.DESTROY_ID, Ucma.DESTROY_ID_RESP, UcmaCommands::destroyId),
            UcmaCommand.io(GET_EVENT, "GET_EVENT", Ucma.GET_EVENT, Ucma.EVENT_RESP, UcmaCommands::getEvent));

    private static UcmaCommand[] table(UcmaCommand... commands) {
        UcmaCommand[] t = new UcmaCommand[JOIN_MCAST + 1];
        for (UcmaCommand c : commands) {
            if (t[c.number()] != null) {
                throw new IllegalStateException("two handlers for ucma command " + c.number());
            }
            t[c.number()] = c;
        }
        return t;
    }

    /** ucma_create_id: the port space decides the QP type (EINVAL for none), then a context and its id. */
    private static void createId(UcmaRequest r) throws Errno {
        PortSpace ps = PortSpace.of(r.getInt("ps"));
        int qpType = ps.qpType(r.getInt("qp_type"));
        UcmaFile file = r.file();
        UcmaContext c = file.newContext();
        c.uid = r.get("uid");
        c.cmId = new CmaId(ps, qpType, (id, event) -> file.queue(c, id, event));
        byte[] resp = new byte[Ucma.CREATE_ID_RESP.size()];
        Ucma.CREATE_ID_RESP.field("id").put(resp, 0, c.id);
        try {
            r.respond(resp);
        } catch (Errno e) {
            file.device.contexts.remove(c);
            file.destroy(c);
            throw e;
        }
    }

    /** ucma_destroy_id: out of the table first, the id destroyed, then the count of its events read. */
    private static void destroyId(UcmaRequest r) throws Errno {
        UcmaContext c = r.file().device.contexts.remove(r.file(), r.getInt("id"));
        int reported = r.file().destroy(c);
        byte[] resp = new byte[Ucma.DESTROY_ID_RESP.size()];
        Ucma.DESTROY_ID_RESP.field("events_reported").put(resp, 0, reported);
        r.respond(resp);
    }

    private static void getEvent(UcmaRequest r) throws Errno {
        r.file().getEvent(r, r.get("response"));
    }

    /** struct rdma_ucm_event_resp for {@code event} of {@code c} (ucma_create_uevent). */
    static byte[] eventResponse(UcmaContext c, CmaEvent event) {
        CStruct s = Ucma.EVENT_RESP;
        byte[] b = new byte[s.size()];
        s.field("uid").put(b, 0, c.uid);
        s.field("id").put(b, 0, c.id);
        s.field("event").put(b, 0, event.type().ordinal());
        s.field("status").put(b, 0, event.status());
        if (event.param() != null) {
            System.arraycopy(event.param(), 0, b, s.field("param").offset(), event.param().length);
        }
        return b;
    }
}
