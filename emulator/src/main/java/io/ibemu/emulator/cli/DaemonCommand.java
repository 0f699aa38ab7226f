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

    static boolean running() {
        return running;
    }

    /**
     * The daemon's options as scripts/ibemu writes them ({@code daemon --state DIR}, then
     * {@code --topology}, {@code --local}, {@code --identity}, each with a value), read
     * without picocli, whose class loading and reflection cost ~0.5 s of CPU, a third of a
     * start; null for anything else (help, an unknown option, a missing value), which picocli
     * then parses and reports as always.
     */
    static DaemonCommand fromLauncher(String[] args) {
        if (args.length < 3 || !args[0].equals("daemon") || args.length % 2 == 0) {
            return null;
        }
        DaemonCommand command = new DaemonCommand();
        for (int i = 1; i < args.length; i += 2) {
            String value = args[i + 1];
            if (value.startsWith("-")) {
                return null;
            }
            switch (args[i]) {
                case "--state" -> command.state = Path.of(value);
                case "--topology" -> command.topology = Path.of(value);
                case "--local" -> command.locals.add(value);
                case "--identity" -> command.identity = Path.of(value);
                default -> {
                    return null;
                }
            }
        }
        return command.state == null ? null : command;
    }

    @Override
    public Integer call() {
        try {
            Daemon daemon = Daemon.start(new Daemon.Options(state, topology, locals, identity));
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
