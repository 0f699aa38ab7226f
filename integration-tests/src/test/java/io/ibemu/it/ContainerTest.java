package io.ibemu.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Containerfile's image, built and run with Debian's podman. No registry is assumed: the
 * base is a Debian 12 made with debootstrap (kept in target/) and imported; podman keeps its images
 * and containers in a fresh directory (--root, --runroot), never the host's /var/lib/containers,
 * and removes them after. Run with only
 * {@code --device /dev/fuse}: no capability added, the image's user, the launcher's user
 * namespace. On this machine podman needs three things a CI runner does not (they are in
 * {@link #podman}): builds with chroot isolation and runs with runc, because crun refuses the
 * machine's hybrid cgroups, and the containers' RLIMIT_NOFILE/NPROC at or below the caller's,
 * because the sandbox lacks CAP_SYS_RESOURCE to raise them.
 */
class ContainerTest {
    static final Path WORK = Ibemu.targetDir().resolve("container");
    static final String IMAGE = "localhost/ibemu:it";
    /** podman's storage and run directories: fresh, and short (podman refuses a runroot past 50 characters). */
    static Path podmanDir;

    @BeforeAll
    static void buildTheImage() throws IOException {
        assumeTrue(Ibemu.host("sh", "-c", "command -v podman && command -v runc && command -v debootstrap").ok(),
                "podman, runc and debootstrap (scripts/setup-deps installs them)");
        assumeTrue(Ibemu.host("id", "-u").assertOk().out().equals("0"), "debootstrap needs root");
        Files.createDirectories(WORK);
        podmanDir = Files.createTempDirectory(Path.of("/tmp"), "ibpod");
        // the base: Debian 12 from the mirror, kept as a tarball in target/ for the next run
        Path base = WORK.resolve("debian-bookworm.tar");
        if (!Files.isRegularFile(base)) {
            Path rootfs = WORK.resolve("rootfs");
            Ibemu.host("rm", "-rf", "--", rootfs.toString());
            List<String> debootstrap = new ArrayList<>(List.of("debootstrap", "--variant=minbase", "bookworm",
                    rootfs.toString()));
            aptMirror().ifPresent(debootstrap::add); // else debootstrap's own default
            Command.of(debootstrap.toArray(String[]::new)).timeout(Duration.ofMinutes(15)).run().assertOk();
            Command.of("tar", "-C", rootfs.toString(), "-cf", base + ".part", ".").timeout(Duration.ofMinutes(5)).run()
                    .assertOk();
            Files.move(Path.of(base + ".part"), base);
            Ibemu.host("rm", "-rf", "--", rootfs.toString());
        }
        podman(Duration.ofMinutes(5), "import", base.toString(), "localhost/ibemu-debian-base:bookworm").assertOk();
        // the image's layers: the checkout's built pieces (the daemon, its libraries, the native stub and shim)
        podman(Duration.ofMinutes(20), "build", "--isolation", "chroot", "--network", "host", "--build-arg",
                "BASE=localhost/ibemu-debian-base:bookworm", "-f", Ibemu.root().resolve("Containerfile").toString(),
                "-t", IMAGE, Ibemu.root().toString()).assertOk();
    }

    @AfterAll
    static void removeTheImages() {
        if (podmanDir != null) {
            podman("rmi", "--all", "--force");
            podman("system", "reset", "--force");
            Ibemu.host("rm", "-rf", "--", podmanDir.toString());
        }
    }

    private static Result podman(String... args) {
        return podman(Duration.ofMinutes(3), args);
    }

    private static Result podman(Duration timeout, String... args) {
        // podman's blob-info cache ignores --root (/var/lib/containers/cache as root): a private
        // mount namespace with a tmpfs over /var/lib keeps it, and the rest of podman, off the host
        List<String> argv = new ArrayList<>(List.of("unshare", "-m", "--propagation", "private", "sh", "-c",
                "mount -t tmpfs -o mode=0755 ibemu-podman /var/lib && exec \"$@\"", "podman-private",
                "podman", "--root", podmanDir.resolve("s").toString(),
                "--runroot", podmanDir.resolve("r").toString(), "--runtime", "runc"));
        argv.addAll(List.of(args));
        return Command.of(argv).timeout(timeout).run();
    }

    /** podman run --rm with the least that works: /dev/fuse, no network, no capability added. */
    private static Result run(String... imageAndArgs) {
        String limits = Ibemu.host("sh", "-c", "echo $(ulimit -Sn):$(ulimit -Hn)").assertOk().out();
        List<String> argv = new ArrayList<>(List.of("run", "--rm", "--network", "none", "--device", "/dev/fuse",
                "--ulimit", "nofile=" + limits, "--ulimit", "nproc=4096:4096"));
        argv.addAll(List.of(imageAndArgs));
        return podman(argv.toArray(String[]::new));
    }

    @Test
    void theEntryPointRunsACommandAgainstAnEmulatedFabric() {
        Result r = run(IMAGE, "sh", "-c", "id -un; ibstat -l; ibv_devinfo -l");
        r.assertOk();
        assertEquals(List.of("root", "ibemu0", "1 HCA found:", "ibemu0"),
                r.stdout().lines().map(String::strip).filter(l -> !l.isEmpty()).toList(),
                "the image's user is root of the launcher's user namespace: " + r);
    }

    @Test
    void openSmPingpongAndPyverbsInTheContainer() throws IOException {
        Path fabric = WORK.resolve("fabric.net");
        Files.copy(Ibemu.root().resolve("integration-tests/src/test/resources/topology/two-switches.net"), fabric,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Result r = run("-v", fabric + ":/fabric.net:ro", "--entrypoint", "ibemu", IMAGE, "run", "--topology", "/fabric.net",
                "--local", "a", "--local", "b", "--sm", "opensm", "--", "sh", "-c", String.join("\n",
                        "ibstat | grep -c 'State: Active'",
                        "ibv_rc_pingpong -d ibemu0 -g 0 -n 50 > /tmp/server 2>&1 &",
                        "srv=$!",
                        Loopback.awaitListening(18515, "srv"),
                        "ibv_rc_pingpong -d ibemu1 -g 0 -n 50 localhost > /tmp/client 2>&1; c=$?",
                        "wait $srv; s=$?; tail -n1 /tmp/client",
                        "python3 -c 'import pyverbs.device as d; print(sorted(x.name.decode() for x in d.get_device_list()))'",
                        "[ $c = 0 ] && [ $s = 0 ]"));
        r.assertOk();
        List<String> lines = r.stdout().lines().toList();
        assertEquals("2", lines.get(0), "OpenSM made both local ports Active: " + r);
        assertTrue(lines.get(1).contains("50 iters in"), r.toString());
        assertEquals("['ibemu0', 'ibemu1']", lines.get(2), r.toString());
    }

    /** The Debian mirror this machine's apt already uses (its main archive, not security), if it names one. */
    private static java.util.Optional<String> aptMirror() {
        String uri = Ibemu.host("sh", "-c", "{ grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}';"
                + " grep -hs '^deb ' /etc/apt/sources.list | awk '{print $2}'; } | grep -v -- '-security' | head -n 1")
                .out().strip();
        return uri.isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(uri);
    }
}
