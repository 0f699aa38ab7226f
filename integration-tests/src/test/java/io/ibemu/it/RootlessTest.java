package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * scripts/ibemu as an ordinary user: a user made for this test (useradd, removed after) runs
 * run, start, exec, ctl, status and stop, ibstat, an OpenSM sweep (--sm opensm, saquery) and
 * ibv_rc_pingpong. The daemon's mount namespace is held by a user namespace of its own; nothing
 * of it needs root. The launcher, the jar and the native pieces are copied to a directory the
 * user can read, so the checkout may be anywhere (a clone under /root included).
 */
class RootlessTest {
    static String user;
    static Path tree;
    static Path home;

    @BeforeAll
    static void makeUser() throws IOException {
        assumeTrue(Ibemu.host("id", "-u").assertOk().out().equals("0"), "making a user needs root");
        user = "ibemu" + Long.toHexString(System.nanoTime() & 0xffffffL);
        Ibemu.host("useradd", "--create-home", "--shell", "/bin/sh", user).assertOk();
        home = Path.of(Ibemu.host("sh", "-c", "getent passwd " + user + " | cut -d: -f6").assertOk().out());
        tree = Files.createTempDirectory(Path.of("/tmp"), "ibemu-rootless-");
        Path root = Ibemu.root();
        for (String f : List.of("scripts/ibemu", "emulator/target/emulator.jar", "emulator/target/emulator.jsa",
                "devfs/target/native/libfuse-stream-open.so", "devfs/target/native/ibemu-supervise",
                "integration-tests/src/test/resources/topology/two-switches.net")) {
            Path from = root.resolve(f);
            if (Files.exists(from)) {
                Files.createDirectories(tree.resolve(f).getParent());
                Files.copy(from, tree.resolve(f), java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
            }
        }
        Ibemu.host("cp", "-r", root.resolve("emulator/target/lib").toString(), tree.resolve("emulator/target").toString())
                .assertOk(); // the jar's Class-Path
        Ibemu.host("chmod", "-R", "a+rX", tree.toString()).assertOk();
    }

    @AfterAll
    static void removeUser() {
        if (user != null) {
            // the user's processes are the launcher's and have ended with it; -r takes the home
            Ibemu.host("userdel", "--remove", user);
        }
        if (tree != null) {
            Ibemu.host("rm", "-rf", "--", tree.toString());
        }
    }

    /** {@code scripts/ibemu ARGS} as the user, in its home, with a plain environment. */
    private static Result asUser(String... args) {
        List<String> argv = new java.util.ArrayList<>(List.of("runuser", "-u", user, "--", "env", "-i", "-C", home.toString(),
                "HOME=" + home, "PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "IBEMU_NO_BUILD=1", "IBEMU_NO_SETUP=1",
                "LANG=C.UTF-8", tree.resolve("scripts/ibemu").toString()));
        argv.addAll(List.of(args));
        return Command.of(argv).timeout(Duration.ofMinutes(3)).run();
    }

    @Test
    void runShowsTheHcaToIbstatWithoutRoot() {
        Result r = asUser("run", "--", "sh", "-c", "id -u; ibstat");
        r.assertOk();
        assertTrue(r.stdout().startsWith("0\n"), "root of its own user namespace: " + r);
        assertTrue(r.stdout().contains("CA 'ibemu0'") && r.stdout().contains("Physical state: LinkUp"), r.toString());
    }

    @Test
    void startExecCtlStatusAndStopWithoutRoot() {
        try {
            asUser("start", "--name", "mine").assertOk();
            assertTrue(asUser("status", "--name", "mine").assertOk().stdout().contains("alive"));
            Result devices = asUser("exec", "--name", "mine", "--", "sh", "-c", "ls /dev/infiniband; ibv_devinfo -l");
            devices.assertOk();
            assertTrue(devices.stdout().contains("uverbs0") && devices.stdout().contains("ibemu0"), devices.toString());
            Result ports = asUser("ctl", "--name", "mine", "ports");
            ports.assertOk();
            assertTrue(ports.stdout().contains("\"local\"[1] guid 0x"), ports.toString());
            assertTrue(Files.isDirectory(home.resolve(".local/state/ibemu/mine")), "the state is the user's");
        } finally {
            asUser("stop", "--name", "mine").assertOk();
        }
        assertEquals(3, asUser("status", "--name", "mine").exitCode(), "stopped");
        assertFalse(Files.exists(home.resolve(".local/state/ibemu/mine")));
    }

    @Test
    void anOpenSmSweepAndRcPingpongWithoutRoot() {
        int port = Loopback.freePort();
        Result r = asUser("run", "--topology", tree.resolve("integration-tests/src/test/resources/topology/two-switches.net")
                .toString(), "--local", "a", "--local", "b", "--sm", "opensm", "--", "sh", "-c", String.join("\n",
                "ibstat | grep 'State: Active' | wc -l",
                "saquery -s | grep -c 'SM' || true",
                "out=$(mktemp)",
                "ibv_rc_pingpong -d ibemu0 -g 0 -n 100 -p " + port + " > $out 2>&1 &",
                "srv=$!",
                Loopback.awaitListening(port, "srv"),
                "ibv_rc_pingpong -d ibemu1 -g 0 -n 100 -p " + port + " localhost; c=$?",
                "wait $srv; s=$?; cat $out; [ $c = 0 ] && [ $s = 0 ]"));
        r.assertOk();
        assertTrue(r.stdout().startsWith("2\n"), "OpenSM made both local ports Active: " + r);
        assertTrue(r.stdout().contains("100 iters in"), r.toString());
    }

    /**
     * --ipoib without root: the daemon's network namespace belongs to its user namespace, where
     * it holds CAP_NET_ADMIN (TUNSETIFF, ip(8)) and may mount that namespace's sysfs; ib0 and ib1
     * join under OpenSM, show IPoIB's sysfs files, take create_child, and ping across the fabric
     * with ib1 moved into a namespace of its own (unshare -n, again without root on the host).
     */
    @Test
    void ipoibWithoutRoot() {
        Result r = asUser("run", "--topology", tree.resolve("integration-tests/src/test/resources/topology/two-switches.net")
                .toString(), "--local", "a", "--local", "b", "--sm", "opensm", "--ipoib", "--", "bash", "-c", """
                echo "type=$(cat /sys/class/net/ib0/type) pkey=$(cat /sys/class/net/ib1/pkey)"
                echo 0x8001 > /sys/class/net/ib0/create_child && ip -o link show ib0.8001 | cut -d' ' -f2
                """ + PeerHost.enter("ib1", "169.254.77.2/24", "--preserve-credentials") + """
                ping -n -c 3 -W 10 169.254.77.2; there=$?
                in_peer ping -n -c 3 -W 10 169.254.77.1; back=$?
                """ + PeerHost.leave("ib1") + """
                echo "there=$there back=$back"
                """);
        assertTrue(r.stdout().contains("type=32 pkey=0xffff\nib0.8001:\n"), r.toString());
        assertTrue(r.stdout().contains("there=0 back=0"), r.toString());
    }
}
