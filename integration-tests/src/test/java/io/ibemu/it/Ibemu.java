package io.ibemu.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A live emulator instance for integration tests, driven through
 * {@code scripts/ibemu} exactly as a user would:
 *
 * <pre>{@code
 * static Ibemu ib;
 * @BeforeAll static void up()   { ib = Ibemu.start(); }            // default fabric
 * @AfterAll  static void down() { if (ib != null) ib.close(); }   // always stops it
 *
 * @Test void ibstat() { Result r = ib.exec("ibstat").assertOk(); ... }
 * }</pre>
 *
 * <p>{@link #start(String...)} runs {@code scripts/ibemu start --name it-<jvm pid>-<n> ARGS},
 * {@link #exec(String...)} runs {@code scripts/ibemu exec --name ... -- CMD} (with a timeout,
 * killing by pid past it), {@link #close()} runs {@code scripts/ibemu stop --name ...}.
 * Instances still running when the JVM exits are stopped by a shutdown hook, and
 * instances left by a test JVM that died are stopped the first time this class is used.
 *
 * <p>Launcher environment: {@code IBEMU_STATE_DIR} = {@link #stateRoot()} (under
 * integration-tests/target, apart from a user's own instances), {@code IBEMU_NO_BUILD=1}
 * (Maven has just built the jar; no nested build), and /usr/sbin:/sbin on PATH (ibstat,
 * smpquery, opensm live there).
 */
public final class Ibemu implements AutoCloseable {
    public static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    public static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);

    private static final AtomicInteger COUNTER = new AtomicInteger();
    private static final Set<Ibemu> LIVE = ConcurrentHashMap.newKeySet();
    private static volatile boolean initialised;

    private final String name;
    private final Map<String, String> env;
    private volatile boolean stopped;

    private Ibemu(String name, Map<String, String> env) {
        this.name = name;
        this.env = env;
    }

    // ------------------------------------------------------------ locations

    /** The repository root: system property ibemu.root (set by the pom), else found upward from cwd. */
    public static Path root() {
        String p = System.getProperty("ibemu.root");
        if (p != null && !p.isBlank()) {
            return Paths.get(p).toAbsolutePath().normalize();
        }
        for (Path d = Paths.get("").toAbsolutePath(); d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("scripts/ibemu"))) {
                return d;
            }
        }
        throw new IllegalStateException("cannot find the repository root (no ibemu.root, no scripts/ibemu above the cwd)");
    }

    /** scripts/ibemu. */
    public static Path script() {
        return root().resolve("scripts/ibemu");
    }

    /** integration-tests/target. */
    public static Path targetDir() {
        return root().resolve("integration-tests/target");
    }

    /** The tests' IBEMU_STATE_DIR: system property ibemu.stateDir, else integration-tests/target/ibemu-state. */
    public static Path stateRoot() {
        String p = System.getProperty("ibemu.stateDir");
        return p != null && !p.isBlank() ? Paths.get(p).toAbsolutePath() : targetDir().resolve("ibemu-state");
    }

    /** Scratch directory for command output. */
    static Path tmpDir() {
        Path d = targetDir().resolve("it-tmp");
        try {
            Files.createDirectories(d);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return d;
    }

    /** Environment every launcher call gets (see the class comment). */
    public static Map<String, String> launcherEnv() {
        Map<String, String> e = new LinkedHashMap<>();
        e.put("IBEMU_STATE_DIR", stateRoot().toString());
        e.put("IBEMU_NO_BUILD", "1");
        e.put("PATH", pathWithSbin());
        return e;
    }

    static String pathWithSbin() {
        String path = Optional.ofNullable(System.getenv("PATH")).orElse("/usr/bin:/bin");
        List<String> parts = new ArrayList<>(Arrays.asList(path.split(":")));
        for (String s : List.of("/usr/local/sbin", "/usr/sbin", "/sbin")) {
            if (!parts.contains(s)) {
                parts.add(s);
            }
        }
        return String.join(":", parts);
    }

    // ------------------------------------------------------------ the launcher

    /** {@code scripts/ibemu ARGS} as a {@link Command} with {@link #launcherEnv()}; add env, cwd, timeout, then run(). */
    public static Command launcher(String... args) {
        List<String> argv = new ArrayList<>();
        argv.add(script().toString());
        argv.addAll(Arrays.asList(args));
        return Command.of(argv).env(launcherEnv()).cwd(root());
    }

    /** Runs {@code scripts/ibemu ARGS} and returns its result. */
    public static Result ibemu(String... args) {
        return launcher(args).run();
    }

    /** Runs a command on the host (not in any emulator namespace). */
    public static Result host(String... argv) {
        return Command.of(argv).env("PATH", pathWithSbin()).run();
    }

    /**
     * Whether process {@code pid} still runs: it exists and is not a zombie. An orphan that
     * stop ended is a zombie until pid 1 reaps it, which this machine's init does lazily.
     */
    public static boolean running(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            char state = stat.charAt(stat.lastIndexOf(')') + 2);
            return state != 'Z' && state != 'X';
        } catch (IOException gone) {
            return false;
        }
    }

    /** A fresh instance name: it-<jvm pid>-<n>. */
    public static String uniqueName() {
        return "it-" + ProcessHandle.current().pid() + "-" + COUNTER.incrementAndGet();
    }

    // ------------------------------------------------------------ instances

    /** Starts an instance on the default fabric, or with daemon options such as --topology FILE --local NODE. */
    public static Ibemu start(String... daemonArgs) {
        return start(Map.of(), daemonArgs);
    }

    /** Starts an instance on a topology file, playing the given local nodes. */
    public static Ibemu startWithTopology(Path topology, String... localNodes) {
        List<String> args = new ArrayList<>(List.of("--topology", topology.toString()));
        for (String n : localNodes) {
            args.add("--local");
            args.add(n);
        }
        return start(args.toArray(String[]::new));
    }

    /** {@code scripts/ibemu ctl objects}: the counts on one device's line, e.g. files=1 pd=1 cq=1. */
    public Map<String, Integer> objects(String device) {
        Result r = ibemu("ctl", "--name", name, "objects").assertOk();
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (String line : r.lines()) {
            String[] words = line.trim().split("\\s+");
            if (words.length > 1 && words[0].equals(device)) {
                for (int k = 1; k < words.length; k++) {
                    String[] kv = words[k].split("=", 2);
                    if (kv.length == 2 && kv[1].matches("\\d+")) {
                        counts.put(kv[0], Integer.parseInt(kv[1]));
                    }
                }
            }
        }
        if (counts.isEmpty()) {
            throw new AssertionError("ctl objects has no line for " + device + ": " + r);
        }
        return counts;
    }

    /** Starts an instance with extra launcher environment (e.g. IBEMU_JAVA_OPTS). */
    public static Ibemu start(Map<String, String> extraEnv, String... daemonArgs) {
        initialise();
        String name = uniqueName();
        List<String> args = new ArrayList<>(List.of("start", "--name", name));
        args.addAll(Arrays.asList(daemonArgs));
        Ibemu ib = new Ibemu(name, Map.copyOf(extraEnv));
        LIVE.add(ib);
        Result r = launcher(args.toArray(String[]::new)).env(extraEnv).timeout(START_TIMEOUT).run();
        if (!r.ok()) {
            ib.close(); // the launcher cleans up after a failed start; this catches a timeout
            throw new AssertionError("cannot start an ibemu instance: " + r);
        }
        return ib;
    }

    public String name() {
        return name;
    }

    /** Runs {@code scripts/ibemu ctl --name NAME WORDS} against this instance. */
    public Result ctl(String... words) {
        String[] args = new String[words.length + 3];
        args[0] = "ctl";
        args[1] = "--name";
        args[2] = name;
        System.arraycopy(words, 0, args, 3, words.length);
        return ibemu(args);
    }

    /** The instance's state directory (pid, log, ready, args). */
    public Path stateDir() {
        return stateRoot().resolve(name);
    }

    /** The daemon's pid, from the state directory. */
    public long pid() {
        try {
            return Long.parseLong(Files.readString(stateDir().resolve("pid")).strip());
        } catch (IOException e) {
            throw new UncheckedIOException("no pid file for instance " + name, e);
        }
    }

    /** The daemon's log so far (empty if gone). */
    public String log() {
        try {
            return Files.readString(stateDir().resolve("log"));
        } catch (IOException e) {
            return "";
        }
    }

    /** Whether the daemon process is running. */
    public boolean isAlive() {
        try {
            return ProcessHandle.of(pid()).map(ProcessHandle::isAlive).orElse(false);
        } catch (UncheckedIOException | NumberFormatException e) {
            return false;
        }
    }

    /** Runs CMD inside the instance's namespace with the default timeout (60 s). */
    public Result exec(String... command) {
        return exec(Command.DEFAULT_TIMEOUT, command);
    }

    /** Runs CMD inside the instance's namespace; killed past the timeout. */
    public Result exec(Duration timeout, String... command) {
        return execCommand(command).timeout(timeout).run();
    }

    /** {@code scripts/ibemu exec --name NAME -- CMD} as a {@link Command}, to add stdin, cwd, env. */
    public Command execCommand(String... command) {
        List<String> args = new ArrayList<>(List.of("exec", "--name", name, "--"));
        args.addAll(Arrays.asList(command));
        return launcher(args.toArray(String[]::new)).env(env);
    }

    /**
     * {@code opensm ARGS} inside the namespace as a {@link Command}, with its cache
     * (OSM_CACHE_DIR: guid2lid, neighbors) and dumps (OSM_TMP_DIR) in the instance's state
     * directory instead of the host's /var/cache/opensm and /var/log; give it {@code -f LOG}.
     */
    public Command opensm(String... args) {
        List<String> command = new ArrayList<>(List.of("opensm"));
        command.addAll(Arrays.asList(args));
        String dir = stateDir().resolve("opensm").toString();
        return execCommand(command.toArray(String[]::new)).env("OSM_CACHE_DIR", dir).env("OSM_TMP_DIR", dir);
    }

    /** Runs a shell script inside the namespace ({@code sh -c SCRIPT}). */
    public Result sh(String script) {
        return exec("sh", "-c", script);
    }

    /** Reads a file inside the namespace; fails the test if that fails. Trailing newline stripped. */
    public String cat(String path) {
        Result r = exec("cat", path).assertOk();
        String s = r.stdout();
        return s.endsWith("\n") ? s.substring(0, s.length() - 1) : s;
    }

    /** Stops the instance ({@code scripts/ibemu stop}); harmless if already stopped. */
    public Result stop() {
        if (stopped) {
            return null;
        }
        stopped = true;
        LIVE.remove(this);
        if (!Files.exists(stateDir())) {
            return null;
        }
        return launcher("stop", "--name", name).env(env).timeout(STOP_TIMEOUT).run();
    }

    /** Stops the instance; what {@code @AfterAll} calls. */
    @Override
    public void close() {
        Result r = stop();
        if (r != null && !r.ok()) {
            System.err.println("ibemu: stopping instance " + name + " failed: " + r);
        }
    }

    @Override
    public String toString() {
        return "ibemu instance " + name;
    }

    // ------------------------------------------------------------ housekeeping

    private static synchronized void initialise() {
        if (initialised) {
            return;
        }
        initialised = true;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            for (Ibemu ib : List.copyOf(LIVE)) {
                ib.close();
            }
        }, "ibemu-stop-instances"));
        reapOrphans();
    }

    /**
     * Stops instances named it-<pid>-<n> whose test JVM (pid) is gone: left by a run
     * that was killed. Goes through scripts/ibemu stop, which checks the daemon's pid
     * and start time before signalling it.
     */
    static void reapOrphans() {
        Path root = stateRoot();
        if (!Files.isDirectory(root)) {
            return;
        }
        try (Stream<Path> dirs = Files.list(root)) {
            for (Path d : dirs.filter(Files::isDirectory).toList()) {
                String n = d.getFileName().toString();
                String[] parts = n.split("-");
                if (parts.length != 3 || !parts[0].equals("it")) {
                    continue;
                }
                long owner;
                try {
                    owner = Long.parseLong(parts[1]);
                } catch (NumberFormatException e) {
                    continue;
                }
                if (owner != ProcessHandle.current().pid() && ProcessHandle.of(owner).isEmpty()) {
                    launcher("stop", "--name", n).timeout(STOP_TIMEOUT).run();
                }
            }
        } catch (IOException e) {
            // nothing to reap
        }
    }
}
