package io.ibemu.emulator.cli;

import io.ibemu.emulator.uverbs.KernelAbi;

import io.ibemu.devfs.CuseDevice;
import io.ibemu.devfs.DeviceDirectory;
import io.ibemu.devfs.supervise.Supervisor;
import io.ibemu.emulator.ipoib.Ipoib;
import io.ibemu.kernel.Fatal;
import io.ibemu.emulator.uverbs.ProviderProfile;
import picocli.CommandLine.Command;
import sun.misc.Signal;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code daemon --state DIR}: serve the devices until SIGTERM. Started by scripts/ibemu inside
 * {@code unshare -m}; it writes DIR/ready once every device is in place, or DIR/failed.
 */
@Command(name = "daemon", mixinStandardHelpOptions = true,
        description = "Run the emulator in this (private) mount namespace until SIGTERM.")
final class DaemonCommand implements Callable<Integer> {
    private static final System.Logger LOG = System.getLogger(DaemonCommand.class.getName());
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

    @Option(names = "--sm", paramLabel = "none|preset", defaultValue = "none",
            description = "none: ports as after power-on (Init, no LID); preset: the subnet configured at start "
                    + "as an SM on the first cabled local port would leave it (LIDs, routes, Active), with no SM.")
    String sm = "none";

    @Option(names = "--umad-transport", paramLabel = "socket|fuse", defaultValue = "socket",
            description = "How supervised programs' umad files are carried: socket (a socket pair per open: poll and "
                    + "read copies run natively, the daemon checks reads and serves write and ioctl) or fuse (the FUSE "
                    + "file, as for unsupervised opens).")
    String umadTransport = "socket";

    @Option(names = "--backend", paramLabel = "fuse|cuse", defaultValue = "fuse",
            description = "How /dev/infiniband's devices are served: fuse (files on a private FUSE mount, opened "
                    + "through the supervisor) or cuse (real character devices through /dev/cuse; the kernel must "
                    + "have CUSE and 231:* must be free, i.e. ib_umad/ib_uverbs not loaded).")
    String backend = "fuse";

    @Option(names = "--provider", paramLabel = "qib1|qib2|rxe", defaultValue = "qib1",
            description = "Which provider the verbs devices serve: qib1 (ipathverbs at driver ABI 1: every verb a "
                    + "write()), qib2 (ipathverbs at driver ABI 2: CQ and receive rings mapped, polled and posted "
                    + "with no system call) or rxe (rdma-core's rxe provider: every queue mapped, sends a doorbell "
                    + "write, extended QP and CQ); qib2 and rxe need --backend fuse.")
    String provider = "qib1";
    @Option(names = "--kernel-abi", paramLabel = "write-only|4.19|5.4|6.1",
            description = "Which kernel's verbs ABI the uverbs devices present: write-only (no RDMA_VERBS_IOCTL: "
                    + "libibverbs uses write() for everything), or a release's ioctl objects and methods "
                    + "(default: the newest, or IBEMU_KERNEL_ABI).")
    String kernelAbi = System.getenv().getOrDefault("IBEMU_KERNEL_ABI", "");

    @Option(names = "--udev", description = "Apply the udev rules (udevadm test) to every device event.")
    boolean udev;

    @Option(names = "--rules", paramLabel = "DIR",
            description = "With --udev: DIR's rules as well, as if in /etc/udev/rules.d (repeatable; implies --udev).")
    List<Path> rules = new ArrayList<>();

    @Option(names = "--rules-only", paramLabel = "DIR",
            description = "With --udev: the rules of DIR (and of --rules) only, none of the system's (repeatable; implies --udev).")
    List<Path> rulesOnly = new ArrayList<>();

    @Option(names = "--faults", paramLabel = "FILE",
            description = "Fault rules to arm at start, one a line (# comments); see docs/fault-injection.md.")
    Path faults;

    @Option(names = "--supervise-stub", paramLabel = "FILE",
            description = "The ibemu-supervise stub: udevadm and RUN programs run under the supervisor, as commands do.")
    Path superviseStub;

    @Option(names = "--ipoib", description = "IPoIB interfaces ib0, ib1, ... for the local ports, in the daemon's "
            + "network namespace (which must be its own).")
    boolean ipoib;

    @Option(names = "--ipoib-net", paramLabel = "CIDR", defaultValue = Ipoib.Network.DEFAULT,
            description = "The IPv4 network the IPoIB interfaces take addresses from, in port order (default: ${DEFAULT-VALUE}).")
    String ipoibNet = Ipoib.Network.DEFAULT;

    static boolean running() {
        return running;
    }

    /** Heap kept back for the stop after a fatal error (it unmounts and answers what is pending). */
    private static final int FATAL_RESERVE = 2 << 20;
    /** The JVM halts this long after a fatal error even if that stop has not ended. */
    private static final long FATAL_DEADLINE_MS = 20_000;

    /**
     * The daemon's options as scripts/ibemu writes them ({@code daemon --state DIR}, then
     * {@code --topology}, {@code --local}, {@code --identity}, {@code --sm}, {@code --rules}, {@code --rules-only},
     * {@code --supervise-stub}, each with a value, and {@code --udev}), read
     * without picocli, whose class loading and reflection cost ~0.5 s of CPU, a third of a
     * start; null for anything else (help, an unknown option, a missing value), which picocli
     * then parses and reports as always.
     */
    static DaemonCommand fromLauncher(String[] args) {
        if (args.length < 3 || !args[0].equals("daemon")) {
            return null;
        }
        DaemonCommand command = new DaemonCommand();
        for (int i = 1; i < args.length; i += 2) {
            if (args[i].equals("--udev") || args[i].equals("--ipoib")) {
                command.udev |= args[i].equals("--udev");
                command.ipoib |= args[i].equals("--ipoib");
                i--;
                continue;
            }
            if (i + 1 >= args.length || args[i + 1].startsWith("-")) {
                return null;
            }
            String value = args[i + 1];
            switch (args[i]) {
                case "--state" -> command.state = Path.of(value);
                case "--topology" -> command.topology = Path.of(value);
                case "--local" -> command.locals.add(value);
                case "--identity" -> command.identity = Path.of(value);
                case "--sm" -> command.sm = value;
                case "--umad-transport" -> command.umadTransport = value;
                case "--backend" -> command.backend = value;
                case "--provider" -> command.provider = value;
                case "--kernel-abi" -> command.kernelAbi = value;
                case "--rules" -> command.rules.add(Path.of(value));
                case "--rules-only" -> command.rulesOnly.add(Path.of(value));
                case "--supervise-stub" -> command.superviseStub = Path.of(value);
                case "--ipoib-net" -> command.ipoibNet = value;
                case "--faults" -> command.faults = Path.of(value);
                default -> {
                    return null;
                }
            }
        }
        return command.state == null ? null : command;
    }

    @Override
    public Integer call() {
        if (!sm.equals("none") && !sm.equals("preset")) {
            System.err.println("ibemu: --sm " + sm + ": the daemon knows none and preset (opensm is the launcher's)");
            return 2;
        }
        if (!umadTransport.equals("socket") && !umadTransport.equals("fuse")) {
            System.err.println("ibemu: --umad-transport " + umadTransport + ": socket or fuse");
            return 2;
        }
        KernelAbi abi;
        try {
            abi = kernelAbi.isEmpty() ? KernelAbi.newest() : KernelAbi.named(kernelAbi);
        } catch (IllegalArgumentException e) {
            System.err.println("ibemu: " + e.getMessage() + " (IBEMU_KERNEL_ABI sets the default)");
            return 2;
        }
        System.setProperty(Supervisor.MESSAGE_TRANSPORT, umadTransport);
        // a command's own IBEMU_UMAD_TRANSPORT=fuse: its umad opens as FUSE files (exact poll after an HCA removal)
        System.setProperty(Supervisor.MESSAGE_TRANSPORT_VARIABLE, "IBEMU_UMAD_TRANSPORT");
        if (!backend.equals("fuse") && !backend.equals("cuse")) {
            System.err.println("ibemu: --backend " + backend + ": fuse or cuse");
            return 2;
        }
        if (backend.equals("cuse") && !CuseDevice.available()) {
            String message = "--backend cuse: " + CuseDevice.CONTROL + " does not exist, this kernel offers no CUSE "
                    + "(load the cuse module: modprobe cuse), or use --backend fuse (the default)";
            Daemon.reportFailure(state, message);
            System.err.println("ibemu: " + message);
            return 1;
        }
        // read by every DeviceDirectory
        System.setProperty("ibemu.devfs.backend", backend);
        ProviderProfile profile = ProviderProfile.of(provider);
        if (profile == null) {
            System.err.println("ibemu: --provider " + provider + ": qib1, qib2 or rxe");
            return 2;
        }
        if (profile.mapsQueues() && backend.equals("cuse")) {
            // cuse_frontend_fops has no mmap: the queues stay write()-only
            System.err.println("ibemu: --provider " + provider + " maps queues, which a CUSE device cannot: serving "
                    + ProviderProfile.QIB1.label() + " (write-only queues) instead; use --backend fuse for " + provider);
            profile = ProviderProfile.QIB1;
        } else if (profile.mapsQueues() && !Supervisor.canMapFiles()) {
            System.err.println("ibemu: --provider " + provider + " maps queues, which needs memfd_create and inotify "
                    + "(Linux 3.17 on): this kernel lacks one, so " + ProviderProfile.QIB1.label()
                    + " (write-only queues) is served instead");
            profile = ProviderProfile.QIB1;
        }
        Ipoib.Config ipoibConfig = null;
        if (ipoib) {
            try {
                ipoibConfig = new Ipoib.Config(Ipoib.Network.parse(ipoibNet));
            } catch (IllegalArgumentException e) {
                System.err.println("ibemu: " + e.getMessage());
                return 2;
            }
        }
        AtomicReference<Daemon> started = new AtomicReference<>();
        // a daemon that cannot serve any more stops whole and says why (state dir `failed`)
        Fatal.install(reason -> {
            Daemon.reportFailure(state, "fatal: " + reason);
            Daemon daemon = started.get();
            if (daemon != null) {
                daemon.close();
            }
        }, FATAL_RESERVE, FATAL_DEADLINE_MS);
        ignoreUserSignals();
        try {
            List<Path> ruleDirs = new ArrayList<>(rulesOnly);
            ruleDirs.addAll(rules);
            Daemon daemon = Daemon.start(new Daemon.Options(state, topology, locals, identity, sm.equals("preset"),
                    udev || !ruleDirs.isEmpty(), List.copyOf(ruleDirs), !rulesOnly.isEmpty(), superviseStub, abi,
                    profile, ipoibConfig, faults));
            started.set(daemon);
            running = true;
            Runtime.getRuntime().addShutdownHook(new Thread(daemon::close, "shutdown"));
            // FUSE loops run on daemon threads: this thread keeps the JVM up until SIGTERM.
            new java.util.concurrent.CountDownLatch(1).await();
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        } catch (Daemon.StartFailure e) {
            if (Fatal.reason() != null) { // the fatal stop reports and exits
                return Fatal.EXIT_STATUS;
            }
            Daemon.reportFailure(state, e.getMessage());
            System.err.println("ibemu: " + e.getMessage());
            return 1;
        }
    }

    /**
     * SIGUSR1 would end the JVM (default action) and SIGUSR2 reached HotSpot's suspend handler on
     * a thread it does not know and crashed it; the daemon has no use for either, so both are
     * logged and ignored.
     */
    private static void ignoreUserSignals() {
        for (String name : new String[] {"USR1", "USR2"}) {
            try {
                Signal.handle(new Signal(name), s -> LOG.log(System.Logger.Level.WARNING,
                        "SIG{0} ignored: the daemon stops on SIGTERM", s.getName()));
            } catch (IllegalArgumentException e) {
                LOG.log(System.Logger.Level.WARNING, "cannot ignore SIG{0}: {1}", name, e.getMessage());
            }
        }
    }
}
