package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Unmodified Debian libibverbs programs on two local HCAs separated by two switches, with
 * OpenSM started by the launcher: device lists, attributes against sysfs, every pingpong of
 * ibverbs-utils with and without completion events (data checked), and perftest.
 */
class VerbsToolsTest {
    static final Duration TIMEOUT = Duration.ofSeconds(180);
    static Ibemu ib;
    /** Whether the devices present the ioctl path (every --kernel-abi but write-only). */
    static boolean ioctlPath;
    /** Whether that path has INVOKE_WRITE (every release from 5.0 on; not 4.19's tree). */
    static boolean invokeWrite;

    @BeforeAll
    static void up() {
        ib = start(null);
    }

    /** The two-switch fabric, its devices presenting {@code kernelAbi} (null: the default, the newest). */
    static Ibemu start(String kernelAbi) {
        return start(kernelAbi, null);
    }

    /** As {@link #start(String)}, the devices serving {@code provider}'s profile (null: the default). */
    static Ibemu start(String kernelAbi, String provider) {
        Path topology = Ibemu.root().resolve("integration-tests/src/test/resources/topology/two-switches.net");
        ioctlPath = !"write-only".equals(kernelAbi);
        invokeWrite = ioctlPath && !"4.19".equals(kernelAbi);
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("--topology", topology.toString(),
                "--local", "a", "--local", "b", "--sm", "opensm"));
        if (kernelAbi != null) {
            args.addAll(java.util.List.of("--kernel-abi", kernelAbi));
        }
        if (provider != null) {
            args.addAll(java.util.List.of("--provider", provider));
        }
        return Ibemu.start(args.toArray(String[]::new));
    }

    /**
     * libibverbs takes the ioctl path when the device offers it (its INVOKE_WRITE probe answers
     * ENOSPC), and write() only when RDMA_VERBS_IOCTL is ENOTTY or (4.19) every method it tries
     * is EPROTONOSUPPORT.
     */
    @Test
    void libibverbsTakesTheIoctlPathWhenOffered() {
        Result r = ib.exec("strace", "-f", "-e", "trace=ioctl,write", "ibv_devinfo", "-d", "ibemu0").assertOk();
        long ioctls = r.stderr().lines().filter(l -> l.contains("RDMA_VERBS_IOCTL") && l.endsWith("= 0")).count();
        if (ioctlPath && !invokeWrite) {
            assertEquals(0, ioctls, r.stderr());
            assertTrue(r.stderr().contains("RDMA_VERBS_IOCTL") && r.stderr().contains("EPROTONOSUPPORT")
                    && !r.stderr().contains("ENOTTY"), r.stderr());
        } else if (ioctlPath) {
            assertTrue(ioctls > 0, "no RDMA_VERBS_IOCTL succeeded:\n" + r.stderr());
        } else {
            assertEquals(0, ioctls, r.stderr());
            assertTrue(r.stderr().contains("RDMA_VERBS_IOCTL") && r.stderr().contains("ENOTTY"), r.stderr());
        }
    }

    @AfterAll
    static void down() {
        if (ib != null) {
            ib.close();
        }
    }

    @Test
    void ibvDevicesListsEveryLocalHca() {
        Result r = ib.exec("ibv_devices");
        r.assertOk();
        assertTrue(r.stdout().contains("ibemu0") && r.stdout().contains("ibemu1"), r.stdout());
        assertTrue(r.stdout().contains(ib.cat("/sys/class/infiniband/ibemu1/node_guid").strip().replace(":", "")),
                r.stdout());
    }

    @Test
    void ibvDevinfoShowsWhatSysfsAndTheSubnetSay() {
        for (String dev : new String[] {"ibemu0", "ibemu1"}) {
            Result r = ib.exec("ibv_devinfo", "-v", "-d", dev);
            r.assertOk();
            String out = r.stdout();
            String sys = "/sys/class/infiniband/" + dev;
            assertEquals(ib.cat(sys + "/node_guid").strip(), field(out, "node_guid"), out);
            assertEquals(ib.cat(sys + "/sys_image_guid").strip(), field(out, "sys_image_guid"), out);
            assertEquals(ib.cat(sys + "/fw_ver").strip(), field(out, "fw_ver"), out);
            assertEquals("0x1077", field(out, "vendor_id"));
            assertEquals(Integer.toString(0x7322), field(out, "vendor_part_id"));
            assertTrue(field(out, "state").startsWith("PORT_ACTIVE"), out);
            assertEquals(Integer.decode(ib.cat(sys + "/ports/1/lid").strip()), Integer.decode(field(out, "port_lid")));
            assertEquals(Integer.decode(ib.cat(sys + "/ports/1/sm_lid").strip()), Integer.decode(field(out, "sm_lid")));
            assertEquals(ib.cat(sys + "/ports/1/lid_mask_count").strip(), field(out, "port_lmc").replace("0x0", ""));
            assertEquals(gid(ib.cat(sys + "/ports/1/gids/0")), gid(field(out, "GID[  0]")), out);
            // sysfs rate: "40 Gb/sec (4X QDR)"; ibv_devinfo: active_width 4X, active_speed 10.0 Gbps
            String rate = ib.cat(sys + "/ports/1/rate").strip();
            assertTrue(rate.contains("(" + field(out, "active_width") + " "), rate + " vs " + out);
            assertEquals("4096", field(out, "active_mtu"), out);
            for (String limit : new String[] {"max_qp", "max_cq", "max_mr", "max_pd", "max_srq", "max_pkeys"}) {
                assertTrue(Integer.parseInt(field(out, limit)) > 0, limit + " in " + out);
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "ibv_rc_pingpong, -n 300 -c", "ibv_rc_pingpong, -n 300 -c -e", "ibv_rc_pingpong, -n 20 -s 1048576 -c",
        "ibv_uc_pingpong, -n 300 -c", "ibv_uc_pingpong, -n 300 -c -e",
        "ibv_ud_pingpong, -n 300 -c", "ibv_ud_pingpong, -n 300 -c -e -s 1024",
        "ibv_srq_pingpong, -n 300 -c", "ibv_srq_pingpong, -n 300 -c -e -q 4",
    })
    void pingpongBetweenTwoHcasThroughTwoSwitches(String program, String args) {
        Result r = pair(program, "-g 0 " + args, "-d ibemu0", "-d ibemu1", " localhost");
        Matcher m = Pattern.compile("(\\d+) iters in").matcher(r.stdout());
        assertTrue(m.find(), r.toString());
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "ib_send_lat, -n 500", "ib_send_bw, -n 500", "ib_write_lat, -n 500", "ib_write_bw, -n 500 -s 65536",
        "ib_read_lat, -n 300", "ib_read_bw, -n 300", "ib_atomic_lat, -n 300", "ib_atomic_bw, -n 300",
        "ib_send_lat, -c UD -n 300", "ib_send_bw, -c UD -n 300",
    })
    void perftestCompletesAndReportsFigures(String program, String args) {
        Result r = pair(program, args, "-d ibemu0", "-d ibemu1", " localhost");
        assertTrue(r.stdout().contains("#bytes"), r.toString());
    }

    /** Debian's python3-pyverbs (Debian's own interpreter): see src/test/python/pyverbs_check.py. */
    @Test
    void pyverbsQueriesCreatesMovesDataAndGetsTheKernelsErrnos() {
        Path script = Ibemu.root().resolve("integration-tests/src/test/python/pyverbs_check.py");
        Tap.assertPassed(ib.exec(TIMEOUT, "/usr/bin/python3", script.toString(), "ibemu0", "ibemu1"));
    }

    /**
     * The GID queries of rdma-core's tests/test_device.py (query_gid_table, query_gid_ex and their
     * bad flows) with Debian's pyverbs: by ioctl, or from sysfs where the profile has no GID methods.
     */
    @Test
    void pyverbsGidQueriesAsRdmaCoresTestDevice() {
        Path script = Ibemu.root().resolve("integration-tests/src/test/python/pyverbs_gid.py");
        Tap.assertPassed(ib.exec(TIMEOUT, "/usr/bin/python3", script.toString(), "ibemu0"));
    }

    /** REG_MR against RLIMIT_MEMLOCK for a user without CAP_IPC_LOCK (ib_umem_get's accounting). */
    @Test
    void registeredMemoryIsChargedToAnUnprivilegedUsersMemlockLimit() {
        Path script = Ibemu.root().resolve("integration-tests/src/test/python/pyverbs_memlock.py");
        Tap.assertPassed(ib.exec(TIMEOUT, "sh", "-c", "ulimit -l 64 && exec setpriv --reuid=65534 --regid=65534 "
                + "--clear-groups /usr/bin/python3 " + script + " ibemu0"));
    }

    /**
     * qperf polling its CQs (-cp 1) and waiting on completion events (its default). Waiting on
     * events, its end-of-test SIGALRM (a handler without SA_RESTART) lands in REQ_NOTIFY_CQ
     * writes; the supervisor restarts one the signal ended before the daemon received it (as
     * the kernel's write never fails with EINTR), else qperf skips an ack and hangs in
     * ibv_destroy_cq (docs/compatibility.md).
     */
    @ParameterizedTest(name = "qperf {0} {1}")
    @CsvSource({"rc_lat, -cp 1", "rc_bw, -cp 1", "rc_rdma_write_bw, -cp 1", "rc_rdma_read_lat, -cp 1", "ud_lat, -cp 1",
        "rc_lat, -cp 0", "rc_bw, -cp 0", "rc_rdma_read_lat, -cp 0", "ud_lat, -cp 0"})
    void qperfRunsOverTheEmulatedHcas(String test, String polling) {
        int port = Loopback.freePort();
        Result r = ib.exec(TIMEOUT, "sh", "-c", String.join("\n",
                "qperf -lp " + port + " > /dev/null 2>&1 &",
                "srv=$!",
                Loopback.awaitListening(port, "srv"),
                "timeout 60 qperf -lp " + port + " -t 1 " + polling + " -li ibemu1:1 -ri ibemu0:1 localhost " + test,
                "c=$?",
                "kill $srv; wait $srv",
                "exit $c"));
        r.assertOk();
        assertTrue(r.stdout().matches("(?s).*(latency|bw)\\s+=\\s+[0-9.]+ .*"), r.toString());
    }

    @Test
    void ucxInfoListsTheVerbsTransportsOfEveryHca() {
        Result r = ib.exec("ucx_info", "-d");
        r.assertOk();
        for (String dev : new String[] {"ibemu0:1", "ibemu1:1"}) {
            for (String tl : new String[] {"rc_verbs", "ud_verbs"}) {
                assertTrue(Pattern.compile("Transport: " + tl + "\\s+#\\s+Device: " + Pattern.quote(dev)).matcher(r.stdout())
                        .find(), tl + " on " + dev + " in " + r.stdout());
            }
        }
    }

    /** rc_verbs needs an auxiliary datagram transport for its wire-up: UCX takes ud_verbs for it. */
    @ParameterizedTest(name = "ucx_perftest {0} {1}")
    @CsvSource({"'rc_verbs,ud_verbs', tag_lat", "'rc_verbs,ud_verbs', tag_bw -s 65536", "ud_verbs, tag_lat",
        "ud_verbs, tag_bw -s 4096"})
    void ucxPerftestBetweenTwoProcessesOverEachTransport(String transports, String test) {
        int port = Loopback.freePort();
        Result r = ib.exec(TIMEOUT, "sh", "-c", String.join("\n",
                "export UCX_TLS=" + transports + ",self",
                "UCX_NET_DEVICES=ibemu0:1 timeout 120 ucx_perftest -p " + port + " > /dev/null 2>&1 &",
                "srv=$!",
                Loopback.awaitListening(port, "srv"),
                "UCX_NET_DEVICES=ibemu1:1 timeout 120 ucx_perftest -p " + port + " -n 300 -t " + test + " localhost",
                "c=$?",
                "wait $srv; s=$?",
                "[ $c = 0 ] && [ $s = 0 ]"));
        r.assertOk();
        assertTrue(r.stdout().contains("Final:"), r.toString());
    }

    /** Open MPI over UCX: one rank per HCA, ping-pong of 1 B..1 MiB checked byte for byte, then an allreduce. */
    @ParameterizedTest(name = "mpirun over {0}")
    @CsvSource({"'rc_verbs,ud_verbs'", "ud_verbs"})
    void openMpiPingPongAndAllreduceOverUcx(String transports) {
        String bin = CPrograms.compile("mpi_pingpong").toString();
        Result r = ib.exec(TIMEOUT, "timeout", "170", "mpirun", "--allow-run-as-root", "--oversubscribe",
                "--mca", "pml", "ucx", "--mca", "btl", "^openib,uct,vader,tcp", "-x", "UCX_TLS=" + transports + ",self",
                "-np", "1", "-x", "UCX_NET_DEVICES=ibemu0:1", bin, ":",
                "-np", "1", "-x", "UCX_NET_DEVICES=ibemu1:1", bin);
        r.assertOk();
        assertTrue(r.stdout().contains("ok pingpong 1048576 bytes") && r.stdout().contains("ok allreduce"), r.toString());
    }

    /**
     * Server on one HCA in the background, client on the other after it listens; the script fails
     * unless both exit 0. Both outputs go to stdout.
     */
    private static Result pair(String program, String args, String serverDev, String clientDev, String clientTail) {
        int port = Loopback.freePort();
        String script = String.join("\n",
                "set -u",
                "out=$(mktemp -d)",
                program + " " + serverDev + " -p " + port + " " + args + " > $out/server 2>&1 &",
                "srv=$!",
                Loopback.awaitListening(port, "srv"),
                "timeout 120 " + program + " " + clientDev + " -p " + port + " " + args + clientTail + " > $out/client 2>&1",
                "c=$?",
                "wait $srv; s=$?",
                "echo \"== client ($c)\"; cat $out/client; echo \"== server ($s)\"; cat $out/server",
                "rm -rf $out",
                "[ $c = 0 ] && [ $s = 0 ]");
        Result r = ib.exec(TIMEOUT, "sh", "-c", script);
        r.assertOk();
        return r;
    }

    private static java.net.InetAddress gid(String text) {
        try {
            return java.net.InetAddress.getByName(text.strip());
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError("not a GID: " + text, e);
        }
    }

    /** The value after "name:" in ibv_devinfo's output. */
    private static String field(String out, String name) {
        Matcher m = Pattern.compile("(?m)^\\s*" + Pattern.quote(name) + ":\\s*(\\S+)").matcher(out);
        assertTrue(m.find(), name + " in " + out);
        return m.group(1);
    }
}
