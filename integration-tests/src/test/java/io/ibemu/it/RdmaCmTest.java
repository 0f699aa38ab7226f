package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The RDMA connection manager's device, /dev/infiniband/rdma_cm, between two local HCAs separated
 * by switches under OpenSM with IPoIB: its write() ABI raw (src/test/python/ucma_check.py) and
 * unmodified librdmacm (pyverbs' CMEventChannel and CMID, which find the device through RDMA
 * netlink's GET_CHARDEV and open it with open_cdev's char-device checks).
 */
class RdmaCmTest {
    private static final Path TOPOLOGY = Ibemu.root().resolve("integration-tests/src/test/resources/topology/two-switches.net");
    private static Ibemu ib;

    @BeforeAll
    static void up() {
        ib = Ibemu.start("--topology", TOPOLOGY.toString(), "--local", "a", "--local", "b", "--sm", "opensm", "--ipoib");
        idle = Ibemu.ibemu("ctl", "--name", ib.name(), "objects").assertOk().stdout();
    }

    /** ctl objects before any program ran: IPoIB's own IB CM listeners (connected mode) included. */
    private static String idle;

    @AfterAll
    static void down() {
        if (ib != null) {
            ib.close();
        }
    }

    @Test
    void theWriteAbiAnswersAsUcmaDoes() {
        Path script = Ibemu.root().resolve("integration-tests/src/test/python/ucma_check.py");
        Tap.assertPassed(ib.exec(Duration.ofSeconds(300), "/usr/bin/python3", script.toString(),
                Ibemu.script().toString(), ib.name()));
    }

    /** ib0 is ibemu0's port (HCA a), ib1 ibemu1's (HCA b): a client bound to ib1 reaches a server on ib0 across the switches. */
    private static final String A = "169.254.77.1";
    private static final String B = "169.254.77.2";

    /**
     * A server in the background and a client in the foreground, in one shell of the instance:
     * the client's output, then the server's after a line "-- server".
     */
    private static Result pair(String server, String client) {
        // the server listens before the client connects (a REQ before it is rejected, reason 8):
        // wait for its IB CM listener on an rdma_cm service id (TCP, UDP or IB port space), after
        // the one of a server before it is gone (a file's release follows its last close)
        String listening = Ibemu.script() + " ctl --name " + ib.name()
                + " cm | grep -qE 'LISTEN service 0x0000000001(06|11|3f)'";
        String script = "for i in $(seq 300); do " + listening + " || break; sleep 0.1; done\n"
                + server + " > /tmp/rdmacm-server.$$ 2>&1 & s=$!\n"
                + "for i in $(seq 300); do " + listening + " && break; sleep 0.1; done\n"
                + client + "; rc=$?\n"
                + "wait $s; src=$?\necho '-- server'; cat /tmp/rdmacm-server.$$; rm -f /tmp/rdmacm-server.$$\n"
                + "[ $rc = 0 ] && [ $src = 0 ]\n";
        return ib.exec(Duration.ofSeconds(120), "sh", "-c", script);
    }

    /** Every id the programs made is gone: ctl objects is as before they ran, rdma_cm cm_id=0. */
    private void assertNoIdLeft() {
        String objects = "";
        for (int i = 0; i < 100; i++) { // the last closes are released after the programs exit
            objects = Ibemu.ibemu("ctl", "--name", ib.name(), "objects").assertOk().stdout();
            if (objects.equals(idle) && objects.contains("rdma_cm cm_id=0")) {
                return;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        throw new AssertionError("ids left after the programs ended:\n" + objects + "\nbefore:\n" + idle);
    }

    @Test
    void rpingVerifiesTenPingsAcrossTheSwitches() {
        Result r = pair("rping -s -v -a " + A + " -C 10", "rping -c -v -V -C 10 -I " + B + " -a " + A).assertOk();
        assertTrue(r.stdout().contains("ping data: rdma-ping-9") && r.stdout().contains("server ping data: rdma-ping-9"),
                r.toString());
        assertNoIdLeft();
    }

    @Test
    void ucmatoseConnectsTwoConnectionsAndTransfers() {
        Result r = pair("ucmatose -b " + A + " -c 2 -C 10", "ucmatose -s " + A + " -b " + B + " -c 2 -C 10").assertOk();
        assertTrue(r.stdout().contains("data transfers complete") && r.stdout().contains("disconnected"), r.toString());
        assertNoIdLeft();
    }

    /** udaddy: UD ids connect with SIDR_REQ/SIDR_REP across the switches, datagrams both ways. */
    @Test
    void udaddyResolvesItsPeerBySidr() {
        Result r = pair("udaddy -b " + A, "udaddy -s " + A + " -b " + B).assertOk();
        assertTrue(r.stdout().split("-- server")[0].contains("data transfers complete")
                && r.stdout().split("-- server")[1].contains("data transfers complete"), r.toString());
        assertNoIdLeft();
    }

    /**
     * mckey: both ends join 239.1.2.3 through the SA's MCMemberRecord (the RDMA CM's MGID in the
     * UDP space), the receiver attaches its UD QP, the sender's ten datagrams cross the switches
     * to the group's MLID.
     */
    @Test
    void mckeyDeliversToTheGroup() {
        String script = "mckey -m 239.1.2.3 -b " + A + " -C 10 > /tmp/mckey.$$ 2>&1 & s=$!\n"
                // the receiver has joined and attached before anything is sent
                + "for i in $(seq 300); do grep -q 'receiving data transfers' /tmp/mckey.$$ && break; sleep 0.1; done\n"
                + "mckey -m 239.1.2.3 -b " + B + " -s -C 10; rc=$?\n"
                + "wait $s; src=$?; echo '-- server'; cat /tmp/mckey.$$; rm -f /tmp/mckey.$$\n"
                + "[ $rc = 0 ] && [ $src = 0 ]\n";
        Result r = ib.exec(Duration.ofSeconds(120), "sh", "-c", script).assertOk();
        assertTrue(r.stdout().contains("joined dgid: ff12:4001:ffff::f01:203")
                && r.stdout().split("-- server")[1].contains("data transfers complete"), r.toString());
        assertNoIdLeft();
    }

    /**
     * rdma_server/rdma_client (librdmacm's synchronous verbs: rdma_get_request migrates the new id
     * to a channel of its own, MIGRATE_ID) and rsockets' rstream and riostream. Neither client can
     * bind a source address, so both ends use ib0's port, as the kernel routes a local address.
     */
    @Test
    void rdmaServerClientAndRsocketsStreams() {
        Result r = pair("rdma_server -s " + A, "rdma_client -s " + A).assertOk();
        assertTrue(r.stdout().contains("rdma_client: end 0") && r.stdout().contains("rdma_server: end 0"), r.toString());
        for (String p : new String[] {"rstream", "riostream"}) {
            Result s = pair(p + " -b " + A + " -S 4096 -C 100", p + " -s " + A + " -S 4096 -C 100").assertOk();
            assertTrue(s.stdout().matches("(?s).*custom\\s+4k\\s+100\\s+1\\s+800k.*"), s.toString());
        }
        assertNoIdLeft();
    }

    /** perftest over the RDMA CM (-R): the connection through ucma, the data through the verbs. */
    @Test
    void perftestConnectsThroughTheRdmaCm() {
        Result lat = pair("ib_send_lat -R -d ibemu0 -n 100", "ib_send_lat -R -d ibemu1 -n 100 " + A).assertOk();
        assertTrue(lat.stdout().split("-- server")[0].matches("(?s).*\\n\\s*2\\s+100\\s.*"), lat.toString());
        Result bw = pair("ib_write_bw -R -d ibemu0 -n 100", "ib_write_bw -R -d ibemu1 -n 100 " + A).assertOk();
        assertTrue(bw.stdout().split("-- server")[0].matches("(?s).*\\n\\s*65536\\s+100\\s.*"), bw.toString());
        assertNoIdLeft();
    }

    /**
     * kill -9 of an rping client mid-stream: its ids go with its descriptor (ucma_close), the IB
     * CM sends the DREQ, and the server ends (DISCONNECTED, or its RDMA READ of the dead peer's
     * memory fails first); no id is left anywhere afterwards.
     */
    @Test
    void aPeerKilledMidConnectionLeavesTheSurvivorDisconnected() {
        String script = "rping -s -v -a " + A + " -C 100000 > /tmp/rping-kill.$$ 2>&1 & s=$!\n"
                + "for i in $(seq 300); do " + Ibemu.script() + " ctl --name " + ib.name()
                + " objects | grep -q 'rdma_cm cm_id=[1-9]' && break; sleep 0.1; done\n"
                + "rping -c -C 100000 -I " + B + " -a " + A + " > /dev/null 2>&1 & c=$!\n"
                + "for i in $(seq 300); do grep -q 'server ping data' /tmp/rping-kill.$$ && break; sleep 0.1; done\n"
                + "kill -9 $c; wait $c; wait $s; echo \"server exit $?\"; grep -o -e 'DISCONNECT EVENT' -e 'rping server failed' /tmp/rping-kill.$$; rm -f /tmp/rping-kill.$$\n";
        Result r = ib.exec(Duration.ofSeconds(120), "sh", "-c", script).assertOk();
        // the server ends either on the DREQ (DISCONNECTED) or, when its RDMA READ of the dead
        // peer's memory fails first, with rping's error; it never waits forever, and nothing is left
        assertTrue((r.stdout().contains("DISCONNECT EVENT")
                || r.stdout().contains("rping server failed")), r.toString());
        assertNoIdLeft();
    }

    @Test
    void librdmacmOpensTheDeviceAndCreatesIds() {
        String program = """
                from pyverbs.cmid import CMEventChannel, CMID
                import pyverbs.cm_enums as e
                ch = CMEventChannel()
                ids = [CMID(creator=ch, port_space=ps) for ps in (e.RDMA_PS_TCP, e.RDMA_PS_UDP, e.RDMA_PS_IPOIB)]
                for i in ids:
                    i.close()
                ch.close()
                print("created", len(ids))
                """;
        Result r = ib.exec("/usr/bin/python3", "-c", program).assertOk();
        assertTrue(r.stdout().contains("created 3"), r.toString());
    }
    private static Result ctl(String... words) {
        return ib.ctl(words).assertOk();
    }

    /** The line of rule {@code id} in ctl fault list. */
    private static String faultRule(String id) {
        String list = ctl("fault", "list").stdout();
        return list.lines().filter(l -> l.startsWith(id + " ")).findFirst()
                .orElseThrow(() -> new AssertionError("no rule " + id + " in\n" + list));
    }

    /**
     * on=ucma:RESOLVE_ROUTE: rping's client fails its route resolution with the rule's errno (rping
     * resolves the route before it needs the server, so it runs alone), then connects on the next run.
     */
    @Test
    void aUcmaRuleFailsRpingsRouteResolutionOnce() {
        String id = ctl("fault", "add", "on=ucma:RESOLVE_ROUTE", "errno=ETIMEDOUT", "nth=1", "comm=rping").stdout().strip();
        try {
            Result failed = ib.exec(Duration.ofSeconds(120), "rping", "-c", "-v", "-C", "1", "-I", B, "-a", A);
            assertFalse(failed.ok(), failed.toString());
            assertTrue(failed.stderr().contains("rdma_resolve_route: Connection timed out"), failed.toString());
            assertTrue(faultRule(id).startsWith(id + " hits=1 matched=1 "), faultRule(id));
            Result r = pair("rping -s -v -a " + A + " -C 2", "rping -c -v -V -C 2 -I " + B + " -a " + A).assertOk();
            assertTrue(r.stdout().contains("server ping data: rdma-ping-1"), r.toString());
            assertTrue(faultRule(id).startsWith(id + " hits=1 matched=2 "), faultRule(id));
            assertTrue(ib.log().contains("fault rule " + id + " hit ucma:RESOLVE_ROUTE pid="), ib.log());
        } finally {
            ctl("fault", "clear", id);
        }
        assertNoIdLeft();
    }

    /**
     * A lost CM reply: the first REP (class 7, attribute 0x13) is dropped on its first cable; a
     * timeout resends it (the server's REP waiting for its RTU, or the client's REQ, which the
     * server answers with its REP again: cm_dup_req_handler), and rping connects. The ports count
     * the retry in cm_tx_retries.
     */
    @Test
    void aLostCmReplyIsRecoveredByTheCmsRetry() {
        long before = cmRetries();
        String id = ctl("fault", "add", "on=mad", "class=0x07", "attr=0x13", "drop", "nth=1").stdout().strip();
        try {
            Result r = pair("rping -s -v -a " + A + " -C 2", "rping -c -v -V -C 2 -I " + B + " -a " + A).assertOk();
            assertTrue(r.stdout().contains("server ping data: rdma-ping-1"), r.toString());
            assertTrue(faultRule(id).startsWith(id + " hits=1 "), faultRule(id));
            assertTrue(ib.log().contains("fault rule " + id + " dropped a MAD leaving"), ib.log());
            assertTrue(cmRetries() > before, "cm_tx_retries/rep of ibemu0 and req of ibemu1 stayed " + before);
        } finally {
            ctl("fault", "clear", id);
        }
        assertNoIdLeft();
    }

    /** The retries of the server's REPs (ibemu0) and the client's REQs (ibemu1). */
    private static long cmRetries() {
        return ib.exec(Duration.ofSeconds(60), "cat", "/sys/class/infiniband/ibemu0/ports/1/cm_tx_retries/rep",
                "/sys/class/infiniband/ibemu1/ports/1/cm_tx_retries/req").assertOk().stdout().lines()
                .mapToLong(l -> Long.parseLong(l.strip())).sum();
    }
}
