package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * RDMA netlink answered by the daemon for supervised programs: iproute2's {@code rdma} (dev,
 * link, res, dev set), rdma-core's {@code rdma_rename}, libibverbs' netlink device list, and the
 * raw-socket probe of the kernel's errors. Two local HCAs behind two switches, OpenSM up.
 */
class RdmaNetlinkTest {
    static final Duration TIMEOUT = Duration.ofSeconds(120);
    static Ibemu ib;

    @BeforeAll
    static void up() {
        Path topology = Ibemu.root().resolve("integration-tests/src/test/resources/topology/two-switches.net");
        ib = Ibemu.start("--topology", topology.toString(), "--local", "a", "--local", "b", "--sm", "opensm");
    }

    @AfterAll
    static void down() {
        if (ib != null) {
            ib.close();
        }
    }

    @Test
    void rdmaDevListsEveryHcaWithItsSysfsGuid() {
        Result r = ib.exec("rdma", "dev").assertOk();
        for (String dev : new String[] {"ibemu0", "ibemu1"}) {
            String guid = ib.cat("/sys/class/infiniband/" + dev + "/node_guid").strip();
            assertTrue(Pattern.compile("^\\d+: " + dev + ": node_type ca fw \\S+ node_guid " + Pattern.quote(guid),
                    Pattern.MULTILINE).matcher(r.stdout()).find(), r.stdout());
        }
    }

    /** libibverbs (rdma-core 44) asks netlink first: its socket must be a working one, not refused. */
    @Test
    void libibverbsListsTheDevicesOverNetlink() {
        Result r = ib.exec("strace", "-f", "-e", "trace=socket,bind,getsockname", "ibv_devices").assertOk();
        assertTrue(Pattern.compile("socket\\(AF_NETLINK, SOCK_RAW\\|SOCK_CLOEXEC, NETLINK_RDMA\\) = (\\d+)")
                .matcher(r.stderr()).find(), r.stderr());
        assertTrue(Pattern.compile("getsockname\\(\\d+, \\{sa_family=AF_NETLINK, nl_pid=-?\\d+").matcher(r.stderr()).find(),
                r.stderr());
        assertTrue(r.stdout().contains("ibemu0") && r.stdout().contains("ibemu1"), r.stdout());
    }

    @Test
    void rdmaLinkShowsEachPortAsSysfsDoes() {
        Result r = ib.exec("rdma", "link").assertOk();
        for (String dev : new String[] {"ibemu0", "ibemu1"}) {
            String sys = "/sys/class/infiniband/" + dev + "/ports/1/";
            int lid = Integer.decode(ib.cat(sys + "lid").strip());
            int smLid = Integer.decode(ib.cat(sys + "sm_lid").strip());
            assertTrue(r.stdout().contains("link " + dev + "/1 subnet_prefix fe80:0000:0000:0000 lid " + lid
                    + " sm_lid " + smLid + " lmc 0 state ACTIVE physical_state LINK_UP"), r.stdout());
        }
    }

    /** A running ibv_rc_pingpong pair: its QP, CQ, MR and PD on each HCA with its pid, beside ib_mad's own. */
    @Test
    void rdmaResShowsTheResourcesOfARunningPingpongWithItsPid() {
        int port = Loopback.freePort();
        Result r = ib.exec(TIMEOUT, "sh", "-c", String.join("\n",
                "ibv_rc_pingpong -g 0 -d ibemu0 -p " + port + " -n 1000000 > /dev/null 2>&1 &",
                "srv=$!",
                Loopback.awaitListening(port, "srv"),
                "ibv_rc_pingpong -g 0 -d ibemu1 -p " + port + " -n 1000000 localhost > /dev/null 2>&1 &",
                "cli=$!",
                // both QPs in RTS: the pair is exchanging (a million iterations outlast the listing)
                "until [ $(rdma res show qp | grep -c 'type RC state RTS') -ge 2 ]; do kill -0 $cli || break; sleep 0.1; done",
                "echo srv=$srv cli=$cli",
                "for t in qp cq mr pd; do rdma res show $t; done",
                "rdma res",
                "kill $srv $cli; wait"));
        String out = r.stdout();
        Matcher pids = Pattern.compile("srv=(\\d+) cli=(\\d+)").matcher(out);
        assertTrue(pids.find(), r.toString());
        String srv = pids.group(1);
        String cli = pids.group(2);
        assertTrue(Pattern.compile("link ibemu0/1 lqpn \\d+ rqpn \\d+ type RC state RTS .* pid " + srv
                + " comm ibv_rc_pingpong").matcher(out).find(), out);
        assertTrue(Pattern.compile("link ibemu1/1 lqpn \\d+ rqpn \\d+ type RC state RTS .* pid " + cli
                + " comm ibv_rc_pingpong").matcher(out).find(), out);
        assertTrue(out.contains("link ibemu0/1 lqpn 1 type GSI state RTS sq-psn 0 comm [ib_core]"), out);
        for (String kind : new String[] {"cqn", "mrn", "pdn"}) {
            assertTrue(Pattern.compile("dev ibemu0 " + kind + " \\d+ .*pid " + srv + " comm ibv_rc_pingpong")
                    .matcher(out).find(), kind + " in " + out);
        }
        assertTrue(Pattern.compile("ibemu0: pd 2 cq 2 qp 3 cm_id 0 mr 1 ctx 1").matcher(out).find(), out);
    }

    @Test
    void aRenameShowsAtOnceInSysfsIbvDevicesAndIbstat() {
        ib.exec("rdma", "dev", "set", "ibemu0", "name", "mlx5_7").assertOk();
        try {
            Result ls = ib.exec("ls", "/sys/class/infiniband").assertOk();
            assertTrue(ls.stdout().contains("mlx5_7") && !ls.stdout().contains("ibemu0"), ls.stdout());
            assertEquals("mlx5_7", ib.cat("/sys/class/infiniband_verbs/uverbs0/ibdev").strip());
            assertEquals("mlx5_7", ib.cat("/sys/class/infiniband_mad/umad0/ibdev").strip());
            Result devices = ib.exec("ibv_devices").assertOk();
            assertTrue(devices.stdout().contains("mlx5_7") && !devices.stdout().contains("ibemu0"), devices.stdout());
            Result ibstat = ib.exec("ibstat", "-l").assertOk();
            assertTrue(ibstat.stdout().lines().anyMatch("mlx5_7"::equals), ibstat.stdout());
            ib.exec("ibv_devinfo", "-d", "mlx5_7").assertOk();
            Result taken = ib.exec("rdma", "dev", "set", "mlx5_7", "name", "ibemu1");
            assertFalse(taken.ok(), "a name in use must be refused: " + taken);
            assertTrue(taken.stderr().contains("File exists"), taken.toString());
        } finally {
            ib.exec("rdma", "dev", "set", "mlx5_7", "name", "ibemu0").assertOk();
        }
    }

    /**
     * {@code start --udev} with the system's rules: 60-rdma-persistent-naming.rules runs
     * rdma_rename NAME_FALLBACK on the initial add, so the device carries its PCI name from the
     * start, in sysfs, ibv_devices, ibstat and rdma dev alike (as on a Debian host with an HCA).
     */
    @Test
    void theSystemRulesRenameTheDevicesAtStart() {
        try (Ibemu udev = Ibemu.start("--udev")) {
            String slot = udev.exec("readlink", "-f", "/sys/class/infiniband_verbs/uverbs0/device").assertOk().stdout()
                    .strip();
            Matcher bus = Pattern.compile("0000:([0-9a-f]{2}):([0-9a-f]{2})\\.0$").matcher(slot);
            assertTrue(bus.find(), slot);
            String expected = "ibp" + Integer.parseInt(bus.group(1), 16) + "s" + Integer.parseInt(bus.group(2), 16);
            assertEquals(expected, udev.cat("/sys/class/infiniband_verbs/uverbs0/ibdev").strip());
            assertEquals(expected, udev.exec("ls", "/sys/class/infiniband").assertOk().stdout().strip());
            assertTrue(udev.exec("ibv_devices").assertOk().stdout().contains(expected));
            assertEquals(expected, udev.exec("ibstat", "-l").assertOk().stdout().strip());
            assertTrue(udev.exec("rdma", "dev").assertOk().stdout().startsWith("0: " + expected + ":"));
        }
    }

    /** rdma-core's udev helper, as 60-rdma-persistent-naming.rules runs it: the PCI name ibp<bus>s<slot>. */
    @Test
    void rdmaRenameGivesThePciNameUnderNameFallback() {
        String slot = ib.exec("readlink", "-f", "/sys/class/infiniband/ibemu1/device").assertOk().stdout().strip();
        Matcher bus = Pattern.compile("0000:([0-9a-f]{2}):([0-9a-f]{2})\\.0$").matcher(slot);
        assertTrue(bus.find(), slot);
        String expected = "ibp" + Integer.parseInt(bus.group(1), 16) + "s" + Integer.parseInt(bus.group(2), 16);
        ib.exec("/usr/lib/udev/rdma_rename", "ibemu1", "NAME_FALLBACK").assertOk();
        try {
            assertTrue(ib.exec("ls", "/sys/class/infiniband").stdout().contains(expected), expected);
            Result devices = ib.exec("ibv_devices").assertOk();
            assertTrue(devices.stdout().contains(expected), devices.stdout());
            assertTrue(ib.exec("ibstat", "-l").stdout().contains(expected));
            Result guid = ib.exec("/usr/lib/udev/rdma_rename", expected, "NAME_GUID").assertOk();
            String node = ib.cat("/sys/class/infiniband_verbs/uverbs1/ibdev").strip();
            assertTrue(node.matches("ibx[0-9a-f]{16}"), node + " " + guid);
            ib.exec("rdma", "dev", "set", node, "name", "ibemu1").assertOk();
        } finally {
            Result names = ib.exec("ls", "/sys/class/infiniband");
            for (String n : names.stdout().split("\\s+")) {
                if (!n.isEmpty() && !n.equals("ibemu0") && !n.equals("ibemu1")) {
                    ib.exec("rdma", "dev", "set", n, "name", "ibemu1");
                }
            }
        }
    }

    @Test
    void theRawSocketGetsTheKernelsAnswersAndErrors() {
        String bin = CPrograms.compile("rdma_netlink").toString();
        Tap.assertPassed(ib.exec(TIMEOUT, bin));
    }
}
