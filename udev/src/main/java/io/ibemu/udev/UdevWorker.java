package io.ibemu.udev;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Applies the udev rules to every uevent of the instance, one event at a time in SEQNUM order
 * (udevd serializes the events of a device and of its parents; one worker does that and more).
 * For each event it runs systemd's own engine, `udevadm test --action=ACTION /sys/DEVPATH`,
 * which sets the node's MODE/OWNER/GROUP and makes the SYMLINKs and the database inside the
 * namespace as udevd would; then it runs the event's RUN programs, in rule order, with the
 * event's environment, which udevadm test only lists. Everything goes to the instance's log.
 */
public final class UdevWorker implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(UdevWorker.class.getName());
    /** udevd's default event timeout is 180 s; a RUN program or udevadm that hangs is killed sooner. */
    private static final Duration PROGRAM_TIMEOUT = Duration.ofSeconds(60);
    private static final String PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

    /** What runs the programs: a prefix such as the supervisor stub ({@code ibemu-supervise --socket S --}), or none. */
    public record Options(List<String> prefix, Path work, NodePermissions permissions) {
        public Options {
            prefix = List.copyOf(prefix);
        }

        public Options(List<String> prefix, Path work) {
            this(prefix, work, (devname, mode, owner, group) -> false);
        }
    }

    /**
     * Applies the MODE/OWNER/GROUP the rules gave a device whose node udevadm could not handle
     * (one that is not a char node, such as a FUSE file): true if it was one of ours.
     */
    @FunctionalInterface
    public interface NodePermissions {
        boolean apply(String devname, java.util.OptionalInt mode, java.util.OptionalInt owner, java.util.OptionalInt group)
                throws IOException;
    }

    private final Options options;
    private final LinkedBlockingQueue<Uevent> queue = new LinkedBlockingQueue<>();
    private final Thread thread;
    private long queued; // guarded by this
    private long done; // guarded by this
    private volatile boolean closed;
    /** The program running now (udevadm or a RUN program), killed if the daemon stops meanwhile. */
    private volatile Process running;

    public UdevWorker(Options options) throws IOException {
        this.options = options;
        Files.createDirectories(options.work());
        this.thread = new Thread(this::work, "udev-worker");
        thread.setDaemon(true);
    }

    /** Takes the events of {@code events} from now on; runs none before {@link #start}. */
    public void listen(Uevents events) {
        events.listen(this::accept);
    }

    /** Called under the Uevents lock: only queues. */
    private void accept(Uevent event) {
        synchronized (this) {
            queued++;
        }
        queue.add(event);
    }

    public void start() {
        thread.start();
    }

    /** Waits until every event queued so far has been handled (as `udevadm settle`); false on timeout. */
    public synchronized boolean settle(Duration timeout) throws InterruptedException {
        long target = queued;
        long deadline = System.nanoTime() + timeout.toNanos();
        while (done < target) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return true;
    }

    private void work() {
        while (!closed) {
            Uevent event;
            try {
                event = queue.take();
            } catch (InterruptedException e) {
                return;
            }
            try {
                handle(event);
            } catch (IOException | RuntimeException e) {
                LOG.log(Level.WARNING, "udev SEQNUM={0}: {1}", event.seqnum(), e.toString());
            } catch (InterruptedException e) {
                return;
            } finally {
                synchronized (this) {
                    done++;
                    notifyAll();
                }
            }
        }
    }

    private void handle(Uevent event) throws IOException, InterruptedException {
        String sysname = event.devpath().substring(event.devpath().lastIndexOf('/') + 1);
        List<String> test = List.of("udevadm", "test", "--action=" + event.action().word(), "/sys" + event.devpath());
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", PATH);
        env.put("SYSTEMD_DEVICE_VERIFY_SYSFS", "0"); // sd-device accepts the FUSE tree as sysfs
        Output udevadm = execute(test, env);
        String tag = "udev SEQNUM=" + event.seqnum() + " " + event.action().word() + " " + sysname;
        if (udevadm.status() != 0) {
            LOG.log(Level.WARNING, "{0}: udevadm test exited with status {1}: {2}", tag, udevadm.status(), udevadm.err().strip());
            return;
        }
        RulesOutcome outcome = RulesOutcome.parse(udevadm.out(), udevadm.err(), sysname);
        outcome.log().forEach(line -> LOG.log(Level.INFO, "{0}: {1}", tag, line));
        String devname = outcome.properties().get("DEVNAME");
        if (devname != null && outcome.nodeSkipped()
                && (outcome.mode().isPresent() || outcome.owner().isPresent() || outcome.group().isPresent())
                && options.permissions().apply(devname, outcome.mode(), outcome.owner(), outcome.group())) {
            LOG.log(Level.INFO, "{0}: MODE/OWNER/GROUP set on {1} by ibemu (not a char node)", tag, devname);
        }
        String name = event.variables().get("NAME");
        String ruled = outcome.properties().get("NAME");
        if (name != null && ruled != null && !ruled.equals(name)) {
            // only network interfaces are renamed by NAME=; RDMA devices through rdma_rename (netlink)
            LOG.log(Level.INFO, "{0}: NAME={1} requested, not applied (rename is RDMA netlink's)", tag, ruled);
        }
        Map<String, String> runEnv = new LinkedHashMap<>();
        for (String kv : event.environment()) {
            int eq = kv.indexOf('=');
            runEnv.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        runEnv.putAll(outcome.environment());
        for (String line : outcome.run()) {
            run(tag, line, runEnv);
        }
    }

    private void run(String tag, String line, Map<String, String> env) throws IOException, InterruptedException {
        RunProgram program = RunProgram.of(line);
        if (program.argv().isEmpty()) {
            return;
        }
        if (program.builtin()) {
            LOG.log(Level.INFO, "{0}: RUN builtin ''{1}'' not run (builtins act on the host)", tag, line);
            return;
        }
        Output out = execute(program.argv(), env);
        out.out().lines().forEach(l -> LOG.log(Level.INFO, "{0}: ''{1}''(out) ''{2}''", tag, line, l));
        out.err().lines().forEach(l -> LOG.log(Level.INFO, "{0}: ''{1}''(err) ''{2}''", tag, line, l));
        LOG.log(Level.INFO, "{0}: RUN ''{1}'' exited with status {2}", tag, line, out.status());
    }

    private record Output(int status, String out, String err) {
    }

    /** Runs argv (behind the prefix) with exactly {@code env}, its output in files of the work directory. */
    private Output execute(List<String> argv, Map<String, String> env) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(options.prefix());
        command.addAll(argv);
        Path out = options.work().resolve("out");
        Path err = options.work().resolve("err");
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .directory(new java.io.File("/"));
        pb.environment().clear(); // not the daemon's own (its LD_PRELOAD shim)
        pb.environment().putAll(env);
        Process process = pb.start();
        running = process;
        int status;
        if (process.waitFor(PROGRAM_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            status = process.exitValue();
        } else {
            process.destroyForcibly();
            process.waitFor();
            status = -1;
        }
        return new Output(status, Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
        Process p = running;
        if (p != null) {
            p.destroyForcibly();
        }
    }
}
