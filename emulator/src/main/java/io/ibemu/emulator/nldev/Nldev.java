package io.ibemu.emulator.nldev;

import io.ibemu.devfs.netlink.Attributes;
import io.ibemu.devfs.netlink.MessageWriter;
import io.ibemu.devfs.netlink.NetlinkFamily;
import io.ibemu.devfs.netlink.NetlinkMessage;
import io.ibemu.emulator.device.LocalHca;
import io.ibemu.emulator.hca.PortAttributes;
import io.ibemu.emulator.sysfs.InfinibandSysfs;
import io.ibemu.emulator.uverbs.UverbsDevice;
import io.ibemu.kernel.Errno;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * RDMA netlink's RDMA_NL_NLDEV client as drivers/infiniband/core/nldev.c serves it, over the
 * emulated HCAs: device and port queries, resource tracking (restrack) of the uverbs objects
 * and of ib_mad's own per port, rename, system settings and the char-device lookup libibverbs
 * uses. Errors are the kernel's: EINVAL for a missing or unknown index, a failed policy check
 * or an unknown command, EPERM without CAP_NET_ADMIN where the table asks for it.
 */
public final class Nldev implements NetlinkFamily {

    /** NETLINK_RDMA. */
    public static final int PROTOCOL = 20;
    static final int IB_DEVICE_NAME_MAX = 64;
    private static final int NODE_TYPE_CA = 1;
    private static final int UMAD_ABI = 5;
    private static final String POLICY_MESSAGE = "Attribute failed policy validation";

    private final Supplier<List<UverbsDevice>> devices;
    private final BiFunction<LocalHca, String, Integer> rename;
    private final PortNetdevs netdevs;
    private final NldevResources resources = new NldevResources();
    /** The clients with a char device of their own (ucma's rdma_cm), for CHARDEV_TYPE. */
    private final List<GlobalChardev> globalChardevs;

    /** The network interface of a port (IPoIB's ibN), as ib_device_get_netdev finds it. */
    public record Netdev(String name, int ifindex) {
    }

    /** Which network interface a port has in the daemon's network namespace, if any. */
    @FunctionalInterface
    public interface PortNetdevs {
        Optional<Netdev> of(LocalHca hca, int port);
    }

    /** Serves the devices {@code devices} gives (read at each request); {@code rename} moves one (0 or errno). */
    public Nldev(Supplier<List<UverbsDevice>> devices, BiFunction<LocalHca, String, Integer> rename) {
        this(devices, rename, (h, p) -> Optional.empty());
    }

    /** As above; {@code netdevs} names the ports' network interfaces (NDEV_INDEX, NDEV_NAME). */
    public Nldev(Supplier<List<UverbsDevice>> devices, BiFunction<LocalHca, String, Integer> rename,
                 PortNetdevs netdevs) {
        this(devices, rename, netdevs, List.of());
    }

    /** As above, with the clients that have a char device of their own, not a device's (ucma's rdma_cm). */
    public Nldev(Supplier<List<UverbsDevice>> devices, BiFunction<LocalHca, String, Integer> rename,
                 PortNetdevs netdevs, List<GlobalChardev> globalChardevs) {
        this.devices = devices;
        this.rename = rename;
        this.netdevs = netdevs;
        this.globalChardevs = List.copyOf(globalChardevs);
    }

    /**
     * A client's get_global_nl_info (ib_client): its name, as CHARDEV_TYPE asks for it, and its
     * one char device's number, ABI and name.
     */
    public record GlobalChardev(String client, int major, int minor, long abi, String name) {
    }

    @Override
    public Outcome handle(NetlinkMessage m, Sender sender) {
        int client = (m.type() >> 10) & 0x3f;
        NldevCommand cmd = client == NldevCommand.CLIENT ? NldevCommand.of(m.type() & 0x3ff) : null;
        if (cmd == null) {
            return Failure.of(Errno.EINVAL); // is_nl_valid: no such client or op
        }
        if (cmd.admin && !sender.netAdmin()) {
            return Failure.of(Errno.EPERM);
        }
        boolean dump = (m.flags() & NetlinkMessage.NLM_F_DUMP) != 0;
        if (dump && !cmd.dump || !dump && !cmd.doit) {
            return dump ? Failure.of(Errno.EINVAL) : new Reply(List.of());
        }
        if (!cmd.emulated) {
            return dump ? new Dump(List.of(), -Errno.EOPNOTSUPP) : Failure.of(Errno.EOPNOTSUPP);
        }
        Attributes tb;
        try {
            tb = Attributes.parse(m, 0, NldevAttribute.POLICY, NldevAttribute.MAX);
        } catch (Attributes.Invalid e) {
            // the handlers fold a parse error into EINVAL; a doit's extack keeps the parse's note
            if (cmd == NldevCommand.SYS_GET) {
                return new Failure(e.errno, POLICY_MESSAGE, e.offset);
            }
            return dump ? new Dump(List.of(), -Errno.EINVAL) : new Failure(Errno.EINVAL, POLICY_MESSAGE, e.offset);
        }
        Request r = new Request(m, sender, tb);
        return dump ? dump(cmd, r) : doit(cmd, r);
    }

    /** One request, parsed. */
    record Request(NetlinkMessage message, Sender sender, Attributes tb) {
        boolean has(NldevAttribute a) {
            return tb.has(a.number);
        }

        long u32(NldevAttribute a) {
            return tb.u32(a.number);
        }

        MessageWriter reply(NldevCommand type, int flags) {
            return new MessageWriter(type.type(), flags, message.seq(), sender.portId());
        }
    }

    private Outcome doit(NldevCommand cmd, Request r) {
        if (cmd == NldevCommand.SYS_GET) {
            return sysGet(r);
        }
        if (cmd == NldevCommand.GET_CHARDEV) {
            return chardev(r);
        }
        UverbsDevice d = r.has(NldevAttribute.DEV_INDEX) ? device(r.u32(NldevAttribute.DEV_INDEX)) : null;
        if (d == null) {
            return Failure.of(Errno.EINVAL); // no DEV_INDEX, or ib_device_get_by_index found none
        }
        return switch (cmd) {
            case GET -> reply(deviceInfo(r.reply(NldevCommand.GET, 0), d));
            case SET -> set(r, d);
            case PORT_GET -> portGet(r, d);
            case RES_GET -> reply(resources.summary(r.reply(NldevCommand.RES_GET, 0), d));
            default -> resources.get(cmd, r, d);
        };
    }

    private Outcome dump(NldevCommand cmd, Request r) {
        List<byte[]> out = new ArrayList<>();
        if (cmd == NldevCommand.GET || cmd == NldevCommand.RES_GET) {
            for (UverbsDevice d : devices.get()) {
                MessageWriter w = r.reply(cmd, NetlinkMessage.NLM_F_MULTI);
                out.add(cmd == NldevCommand.GET ? deviceInfo(w, d) : resources.summary(w, d));
            }
            return new Dump(out, 0);
        }
        UverbsDevice d = r.has(NldevAttribute.DEV_INDEX) ? device(r.u32(NldevAttribute.DEV_INDEX)) : null;
        if (d == null) {
            return new Dump(out, -Errno.EINVAL);
        }
        if (cmd == NldevCommand.PORT_GET) {
            for (int p = 1; p <= ports(d); p++) {
                out.add(portInfo(r.reply(NldevCommand.PORT_GET, NetlinkMessage.NLM_F_MULTI), d, p));
            }
            return new Dump(out, 0);
        }
        return resources.dump(cmd, r, d);
    }

    /** ib_device_get_by_index: the registered device with that index, or null. */
    UverbsDevice device(long index) {
        for (UverbsDevice d : devices.get()) {
            if (d.hca().local().index() == index) {
                return d;
            }
        }
        return null;
    }

    static int ports(UverbsDevice d) {
        return d.hca().local().node().portCount();
    }

    private static Outcome reply(byte[] message) {
        return new Reply(List.of(message));
    }

    /** fill_nldev_handle. */
    static MessageWriter handle(MessageWriter w, UverbsDevice d) {
        return w.u32(NldevAttribute.DEV_INDEX.number, d.hca().local().index())
                .string(NldevAttribute.DEV_NAME.number, d.hca().local().name());
    }

    /** fill_dev_info. */
    private static byte[] deviceInfo(MessageWriter w, UverbsDevice d) {
        LocalHca hca = d.hca().local();
        handle(w, d).u32(NldevAttribute.PORT_INDEX.number, ports(d))
                .u64(NldevAttribute.CAP_FLAGS.number, d.hca().attributes().deviceCapFlags() & 0xffffffffL);
        String fw = hca.identity().fwVersion();
        if (!fw.isEmpty()) {
            w.string(NldevAttribute.FW_VERSION.number, fw);
        }
        return w.u64(NldevAttribute.NODE_GUID.number, hca.node().guid())
                .u64(NldevAttribute.SYS_IMAGE_GUID.number, hca.node().systemImageGuid())
                .u8(NldevAttribute.DEV_NODE_TYPE.number, NODE_TYPE_CA)
                .u8(NldevAttribute.DEV_DIM.number, 0)
                .string(NldevAttribute.DEV_PROTOCOL.number, "ib")
                .build();
    }

    private Outcome portGet(Request r, UverbsDevice d) {
        if (!r.has(NldevAttribute.PORT_INDEX)) {
            return Failure.of(Errno.EINVAL);
        }
        long port = r.u32(NldevAttribute.PORT_INDEX);
        if (port < 1 || port > ports(d)) {
            return Failure.of(Errno.EINVAL); // rdma_is_port_valid
        }
        // nldev_port_get_doit answers with RDMA_NLDEV_CMD_GET as the type, as the kernel does
        return reply(portInfo(r.reply(NldevCommand.GET, 0), d, (int) port));
    }

    /** fill_port_info for an InfiniBand port, with its netdev when IPoIB gave it one. */
    private byte[] portInfo(MessageWriter w, UverbsDevice d, int port) {
        handle(w, d).u32(NldevAttribute.PORT_INDEX.number, port);
        PortAttributes a;
        try {
            a = d.hca().port(port);
        } catch (Errno e) {
            return w.build();
        }
        long prefix = 0;
        if (a.gids().length > 0) {
            for (int i = 0; i < 8; i++) {
                prefix = prefix << 8 | (a.gids()[0][i] & 0xff);
            }
        }
        w.u64(NldevAttribute.CAP_FLAGS.number, (a.portCapFlags() & 0xffffffffL) | (long) a.portCapFlags2() << 32)
                .u64(NldevAttribute.SUBNET_PREFIX.number, prefix)
                .u32(NldevAttribute.LID.number, a.lid())
                .u32(NldevAttribute.SM_LID.number, a.smLid())
                .u8(NldevAttribute.LMC.number, a.lmc())
                .u8(NldevAttribute.PORT_STATE.number, a.state())
                .u8(NldevAttribute.PORT_PHYS_STATE.number, a.physState());
        Optional<Netdev> netdev = netdevs.of(d.hca().local(), port);
        if (netdev.isPresent()) {
            w.u32(NldevAttribute.NDEV_INDEX.number, netdev.get().ifindex())
                    .string(NldevAttribute.NDEV_NAME.number, netdev.get().name());
        }
        return w.build();
    }

    /** nldev_set_doit: a rename (ib_device_rename); a namespace move is not offered. */
    private Outcome set(Request r, UverbsDevice d) {
        if (r.has(NldevAttribute.DEV_NAME)) {
            String name = r.tb().string(NldevAttribute.DEV_NAME.number, IB_DEVICE_NAME_MAX);
            if (name.isEmpty() || name.indexOf('/') >= 0 || name.equals(".") || name.equals("..")) {
                return Failure.of(Errno.EINVAL);
            }
            for (UverbsDevice other : devices.get()) {
                if (other != d && other.hca().local().name().equals(name)) {
                    return Failure.of(Errno.EEXIST); // __ib_device_get_by_name
                }
            }
            int err = rename.apply(d.hca().local(), name);
            return err == 0 ? new Reply(List.of()) : Failure.of(err);
        }
        if (r.has(NldevAttribute.NET_NS_FD)) {
            return Failure.of(Errno.EOPNOTSUPP);
        }
        return new Reply(List.of());
    }

    /** nldev_sys_get_doit: shared namespaces, no privileged Q_Key, monitor and copy-on-fork supported. */
    private static Outcome sysGet(Request r) {
        return reply(r.reply(NldevCommand.SYS_GET, 0)
                .u8(NldevAttribute.SYS_NETNS_MODE.number, 1)
                .u8(NldevAttribute.SYS_PRIVILEGED_QKEY_MODE.number, 0)
                .u8(NldevAttribute.SYS_MONITOR_MODE.number, 1)
                .u8(NldevAttribute.SYS_COPY_ON_FORK.number, 1)
                .build());
    }

    /**
     * nldev_get_chardev: the char device a client ("uverbs", "umad") gives for a device and port
     * (ib_get_client_nl_info): its dev_t (huge_encode_dev), ABI and name; uverbs adds the driver
     * id. An unknown client (issm is none), or no device: EOPNOTSUPP; umad without a port: EINVAL
     * (as Linux 6.1 answers, checked). A global client (ucma) answers without a device, and with
     * one EOPNOTSUPP.
     */
    private Outcome chardev(Request r) {
        if (!r.has(NldevAttribute.CHARDEV_TYPE)) {
            return Failure.of(Errno.EINVAL);
        }
        String client = r.tb().string(NldevAttribute.CHARDEV_TYPE.number, 32);
        UverbsDevice d = null;
        long port = -1;
        if (r.has(NldevAttribute.DEV_INDEX)) {
            d = device(r.u32(NldevAttribute.DEV_INDEX));
            if (d == null) {
                return Failure.of(Errno.EINVAL);
            }
            if (r.has(NldevAttribute.PORT_INDEX)) {
                port = r.u32(NldevAttribute.PORT_INDEX);
                if (port < 1 || port > ports(d)) {
                    return Failure.of(Errno.EINVAL);
                }
            }
        } else if (r.has(NldevAttribute.PORT_INDEX)) {
            return Failure.of(Errno.EINVAL);
        }
        for (GlobalChardev g : globalChardevs) {
            if (g.client().equals(client)) {
                if (d != null) {
                    return Failure.of(Errno.EOPNOTSUPP); // __ib_get_client_nl_info: the client has no get_nl_info
                }
                return reply(r.reply(NldevCommand.GET_CHARDEV, 0)
                        .u64(NldevAttribute.CHARDEV.number, hugeEncode(g.major(), g.minor()))
                        .u64(NldevAttribute.CHARDEV_ABI.number, g.abi())
                        .string(NldevAttribute.CHARDEV_NAME.number, g.name())
                        .build());
            }
        }
        if (!client.equals("uverbs") && !client.equals("umad")) {
            return Failure.of(Errno.EOPNOTSUPP); // no such client (issm has none either)
        }
        if (d == null) {
            return Failure.of(Errno.EOPNOTSUPP); // neither has a global char device
        }
        MessageWriter w = r.reply(NldevCommand.GET_CHARDEV, 0);
        int major;
        int minor;
        long abi;
        String name;
        if (client.equals("uverbs")) {
            if (port != -1) {
                return Failure.of(Errno.EINVAL); // ib_uverbs_get_nl_info: no per-port device
            }
            w.u32(NldevAttribute.UVERBS_DRIVER_ID.number, d.profile().driverId()); // what ioctl headers must carry
            major = UverbsDevice.MAJOR;
            minor = d.minor();
            abi = d.profile().abiVersion();
            name = "uverbs" + (d.minor() - UverbsDevice.BASE_MINOR);
        } else {
            if (port == -1) {
                return Failure.of(Errno.EINVAL); // ib_umad_get_nl_info: rdma_is_port_valid(-1) fails
            }
            int umad = d.hca().local().umadIndex((int) port);
            major = InfinibandSysfs.UMAD_MAJOR;
            minor = umad;
            abi = UMAD_ABI;
            name = "umad" + umad;
        }
        return reply(w.u64(NldevAttribute.CHARDEV.number, hugeEncode(major, minor))
                .u64(NldevAttribute.CHARDEV_ABI.number, abi)
                .string(NldevAttribute.CHARDEV_NAME.number, name)
                .build());
    }

    /** huge_encode_dev: minor's low byte, major, then minor's upper bits. */
    static long hugeEncode(int major, int minor) {
        return (minor & 0xffL) | ((long) major << 8) | ((long) (minor & ~0xff) << 12);
    }
}
