package io.ibemu.emulator.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code daemon --state DIR}: serve the devices until SIGTERM. Started by scripts/ibemu inside
 * {@code unshare -m}; it writes DIR/ready once every device is in place, or DIR/failed.
 */
@Command(name = "daemon", mixinStandardHelpOptions = true,
        description = "Run the emulator in this (private) mount namespace until SIGTERM.")
final class DaemonCommand implements Callable<Integer> {
    private static volatile boolean running;

    @Option(names = "--state", required = true, paramLabel = "DIR", description = "Instance state directory.")
    Path state;

    @Option(names = "--topology", paramLabel = "FILE",
            description = "ibsim net file or ibnetdiscover output (default: the built-in fabric).")
    Path topology;

    @Option(names = "--local", paramLabel = "NODE",
            description = "A node that is this host: its id in the file, quoted name or 0x GUID. Repeatable.")
    List<String> locals = new ArrayList<>();

    @Option(names = "--identity", paramLabel = "FILE",
            description = "Device names, fw_ver, hca_type, hw_rev, board_id per node ([node] sections).")
    Path identity;

    @Option(names = "--udev", description = "Apply the udev rules (udevadm test) to every device event.")
    boolean udev;

    @Option(names = "--rules", paramLabel = "DIR",
            description = "With --udev: read the rules only from DIR (repeatable; default: the system's rules directories).")
    List<Path> rules = new ArrayList<>();

    @Option(names = "--supervise-stub", paramLabel = "FILE",
            description = "The ibemu-supervise stub: udevadm and RUN programs run under the supervisor, as commands do.")
    Path superviseStub;

    static boolean running() {
        return running;
    }

    @Override
    public Integer call() {
        try {
            Daemon daemon = Daemon.start(new Daemon.Options(state, topology, locals, identity,
                    udev || !rules.isEmpty(), rules, superviseStub));
            running = true;
            Runtime.getRuntime().addShutdownHook(new Thread(daemon::close, "shutdown"));
            // FUSE loops run on daemon threads: this thread keeps the JVM up until SIGTERM.
            new java.util.concurrent.CountDownLatch(1).await();
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        } catch (Daemon.StartFailure e) {
            Daemon.reportFailure(state, e.getMessage());
            System.err.println("ibemu: " + e.getMessage());
            return 1;
        }
    }
}
