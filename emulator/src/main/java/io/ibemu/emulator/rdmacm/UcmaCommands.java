package io.ibemu.emulator.rdmacm;

import io.ibemu.emulator.cm.CmRejectReason;
import io.ibemu.emulator.cm.QpAttributeChange;
import io.ibemu.emulator.hca.AhAttributes;
import io.ibemu.emulator.hca.GlobalRoute;
import io.ibemu.emulator.hca.QpAttributes;
import io.ibemu.emulator.hca.QpState;
import io.ibemu.emulator.mad.PathRecord;
import io.ibemu.devfs.device.DeviceFile;
import io.ibemu.kernel.CField;
import io.ibemu.kernel.CStruct;
import io.ibemu.kernel.Errno;
import java.util.List;
import java.util.function.ToLongFunction;

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
            UcmaCommand.in(BIND_IP, "BIND_IP", Ucma.BIND_IP, UcmaCommands::bindIp),
            UcmaCommand.in(RESOLVE_IP, "RESOLVE_IP", Ucma.RESOLVE_IP, UcmaCommands::resolveIp),
            UcmaCommand.in(RESOLVE_ROUTE, "RESOLVE_ROUTE", Ucma.RESOLVE_ROUTE, UcmaCommands::resolveRoute),
            new UcmaCommand(QUERY_ROUTE, "QUERY_ROUTE", Ucma.QUERY, Ucma.QUERY_ROUTE_RESP.field("ibdev_index").offset(),
                    UcmaCommands::queryRoute),
            UcmaCommand.in(CONNECT, "CONNECT", Ucma.CONNECT, UcmaCommands::connect).extensibleTo("reserved"),
            UcmaCommand.in(LISTEN, "LISTEN", Ucma.LISTEN, UcmaCommands::listen),
            UcmaCommand.in(ACCEPT, "ACCEPT", Ucma.ACCEPT, UcmaCommands::accept).extensibleTo("reserved"),
            UcmaCommand.in(REJECT, "REJECT", Ucma.REJECT, UcmaCommands::reject),
            UcmaCommand.in(DISCONNECT, "DISCONNECT", Ucma.DISCONNECT, UcmaCommands::disconnect),
            UcmaCommand.io(INIT_QP_ATTR, "INIT_QP_ATTR", Ucma.INIT_QP_ATTR, Ucma.QP_ATTR, UcmaCommands::initQpAttr),
            UcmaCommand.in(NOTIFY, "NOTIFY", Ucma.NOTIFY, UcmaCommands::notifyEvent),
            UcmaCommand.io(GET_EVENT, "GET_EVENT", Ucma.GET_EVENT, Ucma.EVENT_RESP, UcmaCommands::getEvent),
            UcmaCommand.in(SET_OPTION, "SET_OPTION", Ucma.SET_OPTION, UcmaCommands::setOption),
            UcmaCommand.io(JOIN_IP_MCAST, "JOIN_IP_MCAST", Ucma.JOIN_IP_MCAST, Ucma.CREATE_ID_RESP,
                    UcmaCommands::joinIpMulticast),
            UcmaCommand.io(LEAVE_MCAST, "LEAVE_MCAST", Ucma.DESTROY_ID, Ucma.DESTROY_ID_RESP, UcmaCommands::leaveMulticast),
            UcmaCommand.io(JOIN_MCAST, "JOIN_MCAST", Ucma.JOIN_MCAST, Ucma.CREATE_ID_RESP, UcmaCommands::joinMulticast),
            UcmaCommand.in(MIGRATE_ID, "MIGRATE_ID", Ucma.MIGRATE_ID, UcmaCommands::migrateId),
            UcmaCommand.in(QUERY, "QUERY", Ucma.QUERY, UcmaCommands::query),
            UcmaCommand.in(BIND, "BIND", Ucma.BIND, UcmaCommands::bind),
            UcmaCommand.in(RESOLVE_ADDR, "RESOLVE_ADDR", Ucma.RESOLVE_ADDR, UcmaCommands::resolveAddr));

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
        c.cmId = new CmaId(file.device.cm, ps, qpType, file.device.cm.addressesIn(file.net), (id, event) -> file.queue(c, id, event));
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

    // ---- addresses ----

    private static final int RDMA_OPTION_ID = 0, RDMA_OPTION_IB = 1;
    private static final int OPTION_TOS = 0, OPTION_REUSEADDR = 1, OPTION_AFONLY = 2, OPTION_ACK_TIMEOUT = 3;
    private static final int OPTION_IB_PATH = 1;
    private static final int QUERY_ADDR = 0, QUERY_PATH = 1, QUERY_GID = 2;

    /** rdma_addr_size_in6: a sockaddr_in6 member holding an AF_INET or AF_INET6 address, else none (EINVAL). */
    private static SockAddr in6(UcmaRequest r, String member) throws Errno {
        byte[] b = r.bytes(member);
        int family = (b[0] & 0xff) | (b[1] & 0xff) << 8;
        if (family != SockAddr.AF_INET && family != SockAddr.AF_INET6) {
            throw Errno.of(Errno.EINVAL);
        }
        return SockAddr.decode(b);
    }

    /** rdma_addr_size_kss: a sockaddr_storage whose family's size is exactly {@code size} (EINVAL otherwise). */
    private static SockAddr storage(UcmaRequest r, String member, int size) throws Errno {
        byte[] b = r.bytes(member);
        int family = (b[0] & 0xff) | (b[1] & 0xff) << 8;
        if (size == 0 || SockAddr.size(family) != size) {
            throw Errno.of(Errno.EINVAL);
        }
        return SockAddr.decode(b);
    }

    /** CAP_NET_BIND_SERVICE, as the caller's uid tells it. */
    private static boolean privileged(UcmaRequest r) {
        return r.caller().uid() == 0;
    }

    /** ucma_bind_ip: the address checked, then rdma_bind_addr. */
    private static void bindIp(UcmaRequest r) throws Errno {
        SockAddr a = in6(r, "addr");
        r.context().cmId.bind(a, privileged(r));
    }

    /** ucma_bind: reserved zero and addr_size the family's (EINVAL), then rdma_bind_addr. */
    private static void bind(UcmaRequest r) throws Errno {
        if (r.get("reserved") != 0) {
            throw Errno.of(Errno.EINVAL);
        }
        SockAddr a = storage(r, "addr", r.getInt("addr_size"));
        r.context().cmId.bind(a, privileged(r));
    }

    /** ucma_resolve_ip: a source family of 0 means none given. */
    private static void resolveIp(UcmaRequest r) throws Errno {
        byte[] src = r.bytes("src_addr");
        SockAddr from = src[0] == 0 && src[1] == 0 ? null : in6(r, "src_addr");
        SockAddr to = in6(r, "dst_addr");
        r.context().cmId.resolveAddr(from, to, r.getInt("timeout_ms"), privileged(r));
    }

    /** ucma_resolve_addr: src_size 0 means none given; dst_size must be the family's. */
    private static void resolveAddr(UcmaRequest r) throws Errno {
        if (r.get("reserved") != 0) {
            throw Errno.of(Errno.EINVAL);
        }
        int srcSize = r.getInt("src_size");
        SockAddr from = srcSize == 0 ? null : storage(r, "src_addr", srcSize);
        SockAddr to = storage(r, "dst_addr", r.getInt("dst_size"));
        r.context().cmId.resolveAddr(from, to, r.getInt("timeout_ms"), privileged(r));
    }

    /** ucma_get_ctx_dev: the context, EINVAL while its id has no device. */
    private static CmaId withDevice(UcmaRequest r) throws Errno {
        CmaId id = r.context().cmId;
        if (id.device() == null) {
            throw Errno.of(Errno.EINVAL);
        }
        return id;
    }

    private static void resolveRoute(UcmaRequest r) throws Errno {
        withDevice(r).resolveRoute(r.getInt("timeout_ms"));
    }

    /** ucma_set_option: level and name decide; a wrong optlen is EINVAL, an unknown name or level ENOSYS. */
    /** KMALLOC_MAX_SIZE on x86_64 (MAX_ORDER 11, 4 KiB pages): a larger optlen is EINVAL before the id is looked up. */
    private static final long KMALLOC_MAX_SIZE = 4L << 20;

    private static void setOption(UcmaRequest r) throws Errno {
        if ((r.get("optlen") & 0xffffffffL) > KMALLOC_MAX_SIZE) {
            throw Errno.of(Errno.EINVAL);
        }
        CmaId id = r.context().cmId;
        int level = r.getInt("level");
        int name = r.getInt("optname");
        int optlen = r.getInt("optlen");
        byte[] value;
        try {
            value = r.caller().readMemory(r.get("optval"), optlen);
        } catch (Errno e) {
            throw Errno.of(Errno.EFAULT);
        }
        if (level == RDMA_OPTION_ID) {
            switch (name) {
                case OPTION_TOS -> {
                    requireLength(optlen, 1);
                    id.tos(value[0] & 0xff);
                }
                case OPTION_REUSEADDR -> {
                    requireLength(optlen, 4);
                    id.reuseAddr(intOf(value) != 0);
                }
                case OPTION_AFONLY -> {
                    requireLength(optlen, 4);
                    id.afOnly(intOf(value) != 0);
                }
                case OPTION_ACK_TIMEOUT -> {
                    requireLength(optlen, 1);
                    id.ackTimeout(value[0] & 0xff);
                }
                default -> throw Errno.of(Errno.ENOSYS);
            }
        } else if (level == RDMA_OPTION_IB && name == OPTION_IB_PATH) {
            setIbPath(id, value);
        } else {
            throw Errno.of(Errno.ENOSYS);
        }
    }

    /** struct ib_path_rec_data: flags, reserved, then the PathRecord as the SA sends it. */
    private static final int PATH_DATA_SIZE = 72, PATH_DATA_RECORD = 8;
    /** IB_PATH_GMP | IB_PATH_PRIMARY | IB_PATH_BIDIRECTIONAL: the one record ucma_set_ib_path takes. */
    private static final int PATH_PRIMARY_GMP = 0x1 | 0x2 | 0x8 | 0x20;

    /**
     * ucma_set_ib_path: a whole number of ib_path_rec_data (EINVAL), the first primary
     * bidirectional GMP record among them (none: EINVAL), an id with a device (EINVAL); then
     * rdma_set_ib_path, and ROUTE_RESOLVED queued before the write returns.
     */
    private static void setIbPath(CmaId id, byte[] value) throws Errno {
        if (value.length % PATH_DATA_SIZE != 0) {
            throw Errno.of(Errno.EINVAL);
        }
        for (int at = 0; at < value.length; at += PATH_DATA_SIZE) {
            if (intOf(value, at) == PATH_PRIMARY_GMP) {
                if (id.device() == null) {
                    throw Errno.of(Errno.EINVAL);
                }
                id.setIbPath(PathRecord.decode(value, at + PATH_DATA_RECORD));
                return;
            }
        }
        throw Errno.of(Errno.EINVAL);
    }

    private static void requireLength(int optlen, int size) throws Errno {
        if (optlen != size) {
            throw Errno.of(Errno.EINVAL);
        }
    }

    private static int intOf(byte[] b) {
        return intOf(b, 0);
    }

    private static int intOf(byte[] b, int at) {
        return (b[at] & 0xff) | (b[at + 1] & 0xff) << 8 | (b[at + 2] & 0xff) << 16 | (b[at + 3] & 0xff) << 24;
    }

    /** ucma_query: the context first, then the option (an unknown one ENOSYS). */
    private static void query(UcmaRequest r) throws Errno {
        CmaId id = r.context().cmId;
        switch (r.getInt("option")) {
            case QUERY_ADDR -> queryAddr(r, id);
            case QUERY_PATH -> queryPath(r, id);
            case QUERY_GID -> queryGid(r, id);
            default -> throw Errno.of(Errno.ENOSYS);
        }
    }

    /** ucma_query_addr: the device's head, then both ends as the id holds them. */
    private static void queryAddr(UcmaRequest r, CmaId id) throws Errno {
        CStruct s = Ucma.QUERY_ADDR_RESP;
        byte[] b = queryAddrHead(r, id.device());
        address(b, s, "src", id.source());
        address(b, s, "dst", id.destination());
        r.respondWithin(b);
    }

    /** The head both address queries fill: ENOSPC below ibdev_index; GUID, index, port, P_Key (network order). */
    private static byte[] queryAddrHead(UcmaRequest r, CmaDevice d) throws Errno {
        CStruct s = Ucma.QUERY_ADDR_RESP;
        if (r.outLength() < s.field("ibdev_index").offset()) {
            throw Errno.of(Errno.ENOSPC);
        }
        byte[] b = new byte[s.size()];
        if (d != null) {
            s.field("node_guid").put(b, 0, d.hca().node().guid());
            s.field("ibdev_index").put(b, 0, d.hca().index());
            s.field("port_num").put(b, 0, d.port());
            s.field("pkey").put(b, 0, Short.reverseBytes((short) d.pkey()) & 0xffff);
        }
        return b;
    }

    private static void address(byte[] b, CStruct s, String which, SockAddr a) {
        if (a == null) {
            return;
        }
        s.field(which + "_size").put(b, 0, a.size());
        System.arraycopy(a.encode(a.size()), 0, b, s.field(which + "_addr").offset(), a.size());
    }

    /** ucma_query_gid: both ends as sockaddr_ib: GID, P_Key, the service id and a full mask. */
    private static void queryGid(UcmaRequest r, CmaId id) throws Errno {
        CStruct s = Ucma.QUERY_ADDR_RESP;
        CmaDevice d = id.device();
        byte[] b = queryAddrHead(r, d);
        SockAddr src = id.source();
        SockAddr dst = id.destination();
        byte[] sgid = d != null ? d.sgid() : new byte[16];
        byte[] dgid = d != null && d.dgid() != null ? d.dgid() : new byte[16];
        int pkey = d != null ? d.pkey() : 0;
        SockAddr sib = src != null && src.family() == SockAddr.AF_IB ? src
                : new SockAddr(SockAddr.AF_IB, sgid, 0, pkey, id.serviceId(), -1L, 0);
        SockAddr dib = dst != null && dst.family() == SockAddr.AF_IB ? dst
                : new SockAddr(SockAddr.AF_IB, dgid, 0, pkey, id.serviceId(), -1L, 0);
        address(b, s, "src", sib);
        address(b, s, "dst", dib);
        r.respondWithin(b);
    }

    /** IB_PATH_GMP | IB_PATH_PRIMARY | IB_PATH_BIDIRECTIONAL (OUTBOUND | INBOUND_REVERSE). */
    private static final int PATH_FLAGS = 1 | 1 << 1 | 1 << 3 | 1 << 5;

    /** ucma_query_path: ENOSPC below the header; as many of the route's paths as the room strictly exceeds. */
    private static void queryPath(UcmaRequest r, CmaId id) throws Errno {
        CStruct s = Ucma.QUERY_PATH_RESP;
        if (r.outLength() < s.size()) {
            throw Errno.of(Errno.ENOSPC);
        }
        PathRecord path = id.path();
        int paths = path == null ? 0 : 1;
        int room = r.outLength() - s.size();
        int written = paths > 0 && room > Ucma.PATH_REC_DATA.size() ? 1 : 0;
        byte[] b = new byte[s.size() + written * Ucma.PATH_REC_DATA.size()];
        s.field("num_paths").put(b, 0, paths);
        if (written > 0) {
            Ucma.PATH_REC_DATA.field("flags").put(b, s.size(), PATH_FLAGS);
            path.encode(b, s.size() + Ucma.PATH_REC_DATA.field("path_rec").offset());
        }
        r.respond(b);
    }

    /** ucma_query_route: the IP addresses always; GUID, index, port and the route's GIDs once bound to a device. */
    private static void queryRoute(UcmaRequest r) throws Errno {
        CmaId id = r.context().cmId;
        CStruct s = Ucma.QUERY_ROUTE_RESP;
        byte[] b = new byte[s.size()];
        for (String which : new String[] {"src", "dst"}) {
            SockAddr a = which.equals("src") ? id.source() : id.destination();
            if (a != null && a.family() != SockAddr.AF_IB) {
                int n = a.family() == SockAddr.AF_INET ? SockAddr.SIZE_IN : SockAddr.SIZE_IN6;
                System.arraycopy(a.encode(n), 0, b, s.field(which + "_addr.sin6_family").offset(), n);
            }
        }
        CmaDevice d = id.device();
        if (d != null) {
            s.field("node_guid").put(b, 0, d.hca().node().guid());
            s.field("ibdev_index").put(b, 0, d.hca().index());
            s.field("port_num").put(b, 0, d.port());
            PathRecord path = id.path();
            if (path != null) {
                s.field("num_paths").put(b, 0, 1);
                routePath(b, path);
            } else {
                // ucma_copy_ib_route with no path yet: the GIDs and P_Key of the address
                System.arraycopy(d.sgid(), 0, b, ROUTE_SGID, 16);
                if (d.dgid() != null) {
                    System.arraycopy(d.dgid(), 0, b, ROUTE_DGID, 16);
                }
                s.field(ROUTE + "pkey").put(b, 0, d.pkey());
            }
        }
        r.respondWithin(b);
    }

    /** One member of a response struct and what it takes from the record being encoded. */
    private record Member<T>(CField field, ToLongFunction<T> value) {
        static <T> Member<T> of(CStruct s, String name, ToLongFunction<T> value) {
            return new Member<>(s.field(name), value);
        }

        static <T> void putAll(byte[] b, List<Member<T>> members, T from) {
            for (Member<T> m : members) {
                m.field.put(b, 0, m.value.applyAsLong(from));
            }
        }
    }

    /** ib_copy_path_rec_to_user: struct ib_user_path_rec's members (the GIDs aside) under {@code prefix}. */
    private static List<Member<PathRecord>> userPath(CStruct s, String prefix) {
        return List.of(
                Member.of(s, prefix + "dlid", PathRecord::dlid),
                Member.of(s, prefix + "slid", PathRecord::slid),
                Member.of(s, prefix + "raw_traffic", p -> p.rawTraffic() ? 1 : 0),
                Member.of(s, prefix + "flow_label", PathRecord::flowLabel),
                Member.of(s, prefix + "reversible", p -> p.reversible() ? 1 : 0),
                Member.of(s, prefix + "mtu", PathRecord::mtu),
                Member.of(s, prefix + "pkey", PathRecord::pkey),
                Member.of(s, prefix + "hop_limit", PathRecord::hopLimit),
                Member.of(s, prefix + "traffic_class", PathRecord::trafficClass),
                Member.of(s, prefix + "numb_path", PathRecord::numbPath),
                Member.of(s, prefix + "sl", PathRecord::sl),
                Member.of(s, prefix + "mtu_selector", PathRecord::mtuSelector),
                Member.of(s, prefix + "rate_selector", PathRecord::rateSelector),
                Member.of(s, prefix + "rate", PathRecord::rate),
                Member.of(s, prefix + "packet_life_time_selector", PathRecord::packetLifeSelector),
                Member.of(s, prefix + "packet_life_time", PathRecord::packetLife),
                Member.of(s, prefix + "preference", PathRecord::preference));
    }

    private static final String ROUTE = "ib_route[0].";
    private static final List<Member<PathRecord>> ROUTE_PATH = userPath(Ucma.QUERY_ROUTE_RESP, ROUTE);
    private static final int ROUTE_DGID = Ucma.QUERY_ROUTE_RESP.field(ROUTE + "dgid").offset();
    private static final int ROUTE_SGID = Ucma.QUERY_ROUTE_RESP.field(ROUTE + "sgid").offset();

    /** The route's path as ib_user_path_rec in QUERY_ROUTE's answer. */
    private static void routePath(byte[] b, PathRecord p) {
        System.arraycopy(SockAddr.gid(p.dgidPrefix(), p.dgidInterface()), 0, b, ROUTE_DGID, 16);
        System.arraycopy(SockAddr.gid(p.sgidPrefix(), p.sgidInterface()), 0, b, ROUTE_SGID, 16);
        Member.putAll(b, ROUTE_PATH, p);
    }

    /**
     * ucma_migrate_id, written to the new file: {@code fd} names the id's current file (not open:
     * ENOENT; not an rdma_cm file: EINVAL), the id is looked up there, and the context moves here
     * with its unread events; the response counts its events read.
     */
    private static void migrateId(UcmaRequest r) throws Errno {
        int fd = r.getInt("fd");
        DeviceFile f = r.caller().fileOf(fd);
        if (!(f instanceof UcmaFile current)) {
            boolean open = java.nio.file.Files.exists(java.nio.file.Path.of("/proc", Integer.toString(r.caller().tid()),
                    "fd", Integer.toString(fd)), java.nio.file.LinkOption.NOFOLLOW_LINKS);
            throw Errno.of(open ? Errno.EINVAL : Errno.ENOENT);
        }
        UcmaContext c = r.file().device.contexts.get(current, r.getInt("id"));
        int reported = current.migrate(c, r.file());
        byte[] resp = new byte[Ucma.MIGRATE_RESP.size()];
        Ucma.MIGRATE_RESP.field("events_reported").put(resp, 0, reported);
        r.respond(resp);
    }

    // ---- multicast ----

    /** RDMA_MC_JOIN_FLAG_* to the MCMemberRecord JoinState bit: full member, or send-only full member. */
    private static final int FULL_MEMBER = 1, SENDONLY_FULL_MEMBER = 1 << 3;

    /** ucma_join_ip_multicast: a sockaddr_in6 member (EINVAL otherwise), joined as a full member. */
    private static void joinIpMulticast(UcmaRequest r) throws Errno {
        join(r, in6(r, "addr"), FULL_MEMBER);
    }

    /** ucma_join_multicast: the address's size as its family's, and a known join flag (EINVAL otherwise). */
    private static void joinMulticast(UcmaRequest r) throws Errno {
        SockAddr a = storage(r, "addr", r.getInt("addr_size"));
        int flags = r.getInt("join_flags");
        if (flags != 0 && flags != 1) {
            throw Errno.of(Errno.EINVAL);
        }
        join(r, a, flags == 0 ? FULL_MEMBER : SENDONLY_FULL_MEMBER);
    }

    /** ucma_process_join: the id must have a device; the join numbered, then rdma_join_multicast. */
    private static void join(UcmaRequest r, SockAddr a, int joinState) throws Errno {
        UcmaContext c = r.context();
        CmaId id = withDevice(r);
        RdmaCmDevice device = r.file().device;
        UcmaMulticast mc = device.newMulticast(r.get("uid"), c, a);
        try {
            id.joinMulticast(a, joinState, mc);
        } catch (Errno e) {
            device.removeMulticast(mc);
            throw e;
        }
        byte[] resp = new byte[Ucma.CREATE_ID_RESP.size()];
        Ucma.CREATE_ID_RESP.field("id").put(resp, 0, mc.id);
        try {
            r.respond(resp);
        } catch (Errno e) {
            id.leaveMulticast(a);
            device.removeMulticast(mc);
            throw e;
        }
    }

    /** ucma_leave_multicast: the join by its id (ENOENT, another file's EINVAL), left; its events read counted. */
    private static void leaveMulticast(UcmaRequest r) throws Errno {
        RdmaCmDevice device = r.file().device;
        UcmaMulticast mc = device.multicast(r.file(), r.getInt("id"));
        mc.context.cmId.leaveMulticast(mc.address);
        device.removeMulticast(mc);
        int reported = r.file().forgetMulticast(mc);
        byte[] resp = new byte[Ucma.DESTROY_ID_RESP.size()];
        Ucma.DESTROY_ID_RESP.field("events_reported").put(resp, 0, reported);
        r.respond(resp);
    }

    // ---- connections ----

    /** ucma's max_backlog sysctl default. */
    private static final int MAX_BACKLOG = 1024;

    /** ucma_listen: a backlog of 0 or above max_backlog is max_backlog. */
    private static void listen(UcmaRequest r) throws Errno {
        UcmaContext c = r.context();
        long backlog = r.get("backlog");
        int b = backlog == 0 || backlog > MAX_BACKLOG ? MAX_BACKLOG : (int) backlog;
        synchronized (r.file()) {
            c.backlog = b;
        }
        c.cmId.listen(b);
    }

    /** ucma_copy_conn_param: the Q_Key only for AF_IB ids. */
    private static ConnParam connParam(UcmaRequest r, CmaId id) {
        ConnParam p = ConnParam.decode(r.command().request(), "conn_param.", r.in());
        return id.family() == SockAddr.AF_IB ? p : new ConnParam(p.qpNum(), 0, p.privateData(), p.srq(),
                p.responderResources(), p.initiatorDepth(), p.flowControl(), p.retryCount(), p.rnrRetryCount());
    }

    /** ucma_connect: conn_param.valid required (EINVAL), then the id must have a device. */
    private static void connect(UcmaRequest r) throws Errno {
        if (r.get("conn_param.valid") == 0) {
            throw Errno.of(Errno.EINVAL);
        }
        CmaId id = withDevice(r);
        id.connect(connParam(r, id));
    }

    /** ucma_accept: with valid parameters the context takes the uid once accepted; without, the active side's RTU. */
    private static void accept(UcmaRequest r) throws Errno {
        UcmaContext c = r.context();
        CmaId id = withDevice(r);
        if (r.get("conn_param.valid") != 0) {
            ConnParam param = connParam(r, id);
            r.file().accept(c, r.get("uid"), () -> id.accept(param));
        } else {
            id.accept(null);
        }
    }

    /** ucma_reject: reason 0 means CONSUMER_DEFINED; only it and VENDOR_OPTION_NOT_SUPPORTED are allowed. */
    private static void reject(UcmaRequest r) throws Errno {
        int reason = r.getInt("reason");
        CmRejectReason why;
        if (reason == 0 || reason == CmRejectReason.CONSUMER_DEFINED.code()) {
            why = CmRejectReason.CONSUMER_DEFINED;
        } else if (reason == CmRejectReason.VENDOR_OPTION_NOT_SUPPORTED.code()) {
            why = CmRejectReason.VENDOR_OPTION_NOT_SUPPORTED;
        } else {
            throw Errno.of(Errno.EINVAL);
        }
        CmaId id = withDevice(r);
        int len = r.getInt("private_data_len");
        id.reject(java.util.Arrays.copyOf(r.bytes("private_data"), len), why);
    }

    private static void disconnect(UcmaRequest r) throws Errno {
        withDevice(r).disconnect();
    }

    private static void notifyEvent(UcmaRequest r) throws Errno {
        withDevice(r).notifyEvent(r.getInt("event"));
    }

    /** ucma_init_qp_attr: a state past ERR is EINVAL; the attributes as ib_copy_qp_attr_to_user writes them. */
    private static void initQpAttr(UcmaRequest r) throws Errno {
        int state = r.getInt("qp_state");
        if (state < 0 || state > QpState.ERR.code()) {
            throw Errno.of(Errno.EINVAL);
        }
        CmaId id = withDevice(r);
        QpAttributeChange change = id.initQpAttr(QpState.values()[state]);
        r.respond(qpAttr(change));
    }

    /** ib_copy_qp_attr_to_user: struct ib_uverbs_qp_attr's members, the address vectors aside. */
    private static final List<Member<QpAttributes>> QP_ATTR_MEMBERS = List.of(
            Member.of(Ucma.QP_ATTR, "qp_state", a -> a.qpState() == null ? 0 : a.qpState().code()),
            Member.of(Ucma.QP_ATTR, "cur_qp_state", a -> a.curQpState() == null ? 0 : a.curQpState().code()),
            Member.of(Ucma.QP_ATTR, "path_mtu", QpAttributes::pathMtu),
            Member.of(Ucma.QP_ATTR, "path_mig_state", QpAttributes::pathMigState),
            Member.of(Ucma.QP_ATTR, "qkey", QpAttributes::qkey),
            Member.of(Ucma.QP_ATTR, "rq_psn", QpAttributes::rqPsn),
            Member.of(Ucma.QP_ATTR, "sq_psn", QpAttributes::sqPsn),
            Member.of(Ucma.QP_ATTR, "dest_qp_num", QpAttributes::destQpNum),
            Member.of(Ucma.QP_ATTR, "qp_access_flags", QpAttributes::qpAccessFlags),
            Member.of(Ucma.QP_ATTR, "pkey_index", QpAttributes::pkeyIndex),
            Member.of(Ucma.QP_ATTR, "alt_pkey_index", QpAttributes::altPkeyIndex),
            Member.of(Ucma.QP_ATTR, "en_sqd_async_notify", a -> a.enSqdAsyncNotify() ? 1 : 0),
            Member.of(Ucma.QP_ATTR, "max_rd_atomic", QpAttributes::maxRdAtomic),
            Member.of(Ucma.QP_ATTR, "max_dest_rd_atomic", QpAttributes::maxDestRdAtomic),
            Member.of(Ucma.QP_ATTR, "min_rnr_timer", QpAttributes::minRnrTimer),
            Member.of(Ucma.QP_ATTR, "port_num", QpAttributes::portNum),
            Member.of(Ucma.QP_ATTR, "timeout", QpAttributes::timeout),
            Member.of(Ucma.QP_ATTR, "retry_cnt", QpAttributes::retryCnt),
            Member.of(Ucma.QP_ATTR, "rnr_retry", QpAttributes::rnrRetry),
            Member.of(Ucma.QP_ATTR, "alt_port_num", QpAttributes::altPortNum),
            Member.of(Ucma.QP_ATTR, "alt_timeout", QpAttributes::altTimeout));
    private static final CField QP_ATTR_MASK = Ucma.QP_ATTR.field("qp_attr_mask");
    private static final AhMembers AH = new AhMembers("ah_attr."), ALT_AH = new AhMembers("alt_ah_attr.");

    private static byte[] qpAttr(QpAttributeChange change) {
        QpAttributes a = change.attributes();
        byte[] b = new byte[Ucma.QP_ATTR.size()];
        QP_ATTR_MASK.put(b, 0, change.mask());
        Member.putAll(b, QP_ATTR_MEMBERS, a);
        AH.put(b, a.ah());
        ALT_AH.put(b, a.altAh());
        return b;
    }

    /** ib_copy_ah_attr_to_user into one of QP_ATTR's two struct ib_uverbs_ah_attr. */
    private static final class AhMembers {
        private final List<Member<AhAttributes>> ah;
        private final List<Member<GlobalRoute>> grh;
        private final CField isGlobal;
        private final int dgid;

        AhMembers(String prefix) {
            CStruct s = Ucma.QP_ATTR;
            ah = List.of(
                    Member.of(s, prefix + "dlid", AhAttributes::dlid),
                    Member.of(s, prefix + "sl", AhAttributes::sl),
                    Member.of(s, prefix + "src_path_bits", AhAttributes::srcPathBits),
                    Member.of(s, prefix + "static_rate", AhAttributes::staticRate),
                    Member.of(s, prefix + "port_num", AhAttributes::portNum));
            grh = List.of(
                    Member.of(s, prefix + "grh.flow_label", GlobalRoute::flowLabel),
                    Member.of(s, prefix + "grh.sgid_index", GlobalRoute::sgidIndex),
                    Member.of(s, prefix + "grh.hop_limit", GlobalRoute::hopLimit),
                    Member.of(s, prefix + "grh.traffic_class", GlobalRoute::trafficClass));
            isGlobal = s.field(prefix + "is_global");
            dgid = s.field(prefix + "grh.dgid").offset();
        }

        void put(byte[] b, AhAttributes a) {
            if (a == null) {
                return;
            }
            Member.putAll(b, ah, a);
            if (a.grh() != null) {
                isGlobal.put(b, 0, 1);
                System.arraycopy(a.grh().dgid(), 0, b, dgid, 16);
                Member.putAll(b, grh, a.grh());
            }
        }
    }

    /** struct rdma_ucm_event_resp for {@code event} of {@code c} (ucma_create_uevent). */
    static byte[] eventResponse(UcmaContext c, CmaEvent event) {
        CStruct s = Ucma.EVENT_RESP;
        byte[] b = new byte[s.size()];
        UcmaMulticast mc = event.multicast() instanceof UcmaMulticast m ? m : null;
        s.field("uid").put(b, 0, mc != null ? mc.uid : c.uid);
        s.field("id").put(b, 0, mc != null ? mc.id : c.id);
        s.field("event").put(b, 0, event.type().ordinal());
        s.field("status").put(b, 0, event.status());
        if (event.param() != null) {
            System.arraycopy(event.param(), 0, b, s.field("param").offset(), event.param().length);
        }
        return b;
    }
}
