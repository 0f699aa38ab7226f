package io.ibemu.it;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A command to run on the host with a timeout: stdout and stderr go to files
 * (no pipe can fill up, and a daemon that inherits them cannot hold the test
 * up), stdin is /dev/null unless given.
 *
 * <p>On timeout the command gets SIGTERM (so scripts/ibemu can stop its
 * daemon), then SIGKILL after 15 s, and so do the processes it had started
 * (collected by pid before it was signalled): only processes this harness
 * started are ever killed.
 */
public final class Command {
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration GRACE = Duration.ofSeconds(15);

    private final List<String> argv;
    private final Map<String, String> env = new LinkedHashMap<>();
    private final Set<String> unset = new HashSet<>();
    private Path cwd;
    private Duration timeout = DEFAULT_TIMEOUT;
    private String stdin;

    private Command(List<String> argv) {
        if (argv.isEmpty()) {
            throw new IllegalArgumentException("empty command");
        }
        this.argv = List.copyOf(argv);
    }

    public static Command of(String... argv) {
        return new Command(Arrays.asList(argv));
    }

    public static Command of(List<String> argv) {
        return new Command(argv);
    }

    public Command env(String name, String value) {
        env.put(name, value);
        unset.remove(name);
        return this;
    }

    public Command env(Map<String, String> vars) {
        vars.forEach(this::env);
        return this;
    }

    public Command unsetEnv(String name) {
        env.remove(name);
        unset.add(name);
        return this;
    }

    public Command cwd(Path dir) {
        this.cwd = dir;
        return this;
    }

    public Command timeout(Duration t) {
        this.timeout = t;
        return this;
    }

    public Command stdin(String text) {
        this.stdin = text;
        return this;
    }

    public List<String> argv() {
        return argv;
    }

    /** Runs the command to its end (or its timeout). */
    public Result run() {
        return start().await();
    }

    /** Starts the command; {@link Running#await()} collects it. */
    public Running start() {
        try {
            Path tmp = Ibemu.tmpDir();
            Path out = Files.createTempFile(tmp, "out-", ".txt");
            Path err = Files.createTempFile(tmp, "err-", ".txt");
            ProcessBuilder pb = new ProcessBuilder(argv)
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile());
            Path in = null;
            if (stdin != null) {
                in = Files.createTempFile(tmp, "in-", ".txt");
                Files.writeString(in, stdin);
                pb.redirectInput(in.toFile());
            } else {
                pb.redirectInput(new File("/dev/null"));
            }
            if (cwd != null) {
                pb.directory(cwd.toFile());
            }
            Map<String, String> e = pb.environment();
            unset.forEach(e::remove);
            e.putAll(env);
            long t0 = System.nanoTime();
            Process p = pb.start();
            return new Running(this, p, out, err, in, t0);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + argv, e);
        }
    }

    /** A started command. */
    public static final class Running {
        private final Command cmd;
        private final Process process;
        private final Path out, err, in;
        private final long t0;

        private Running(Command cmd, Process process, Path out, Path err, Path in, long t0) {
            this.cmd = cmd;
            this.process = process;
            this.out = out;
            this.err = err;
            this.in = in;
            this.t0 = t0;
        }

        public long pid() {
            return process.pid();
        }

        public boolean isAlive() {
            return process.isAlive();
        }

        /** Sends a signal by pid (e.g. "TERM", "INT") to this process only. */
        public void signal(String name) {
            if (process.isAlive()) {
                Command.of("kill", "-s", name, Long.toString(process.pid())).timeout(Duration.ofSeconds(10)).run();
            }
        }

        /** Waits for a stdout line starting with prefix and returns it; fails once the process ends without one. */
        public String awaitLine(String prefix, Duration timeout) throws InterruptedException {
            long end = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < end) {
                for (String line : stdoutSoFar().split("\n")) {
                    if (line.startsWith(prefix)) {
                        return line;
                    }
                }
                if (!isAlive()) {
                    break;
                }
                Thread.sleep(100);
            }
            throw new AssertionError("no '" + prefix + "' line; stdout so far: " + stdoutSoFar());
        }

        /** stdout so far (the command may still be running). */
        public String stdoutSoFar() {
            return read(out);
        }

        /** Ends it now (SIGTERM, then SIGKILL, its children too) and collects what it printed. */
        public Result stop() {
            kill(process);
            return await();
        }

        /** Waits for the end, within the command's timeout; kills it past that. */
        public Result await() {
            boolean timedOut = false;
            try {
                if (!process.waitFor(cmd.timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    timedOut = true;
                    kill(process);
                }
            } catch (InterruptedException e) {
                kill(process);
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while running " + cmd.argv, e);
            }
            int code = process.isAlive() ? -1 : process.exitValue();
            Duration elapsed = Duration.ofNanos(System.nanoTime() - t0);
            Result r = new Result(cmd.argv, code, read(out), read(err), timedOut, elapsed);
            delete(out);
            delete(err);
            if (in != null) {
                delete(in);
            }
            return r;
        }
    }

    /** SIGTERM, a grace period, SIGKILL; then SIGKILL to what it had started. */
    static void kill(Process p) {
        List<ProcessHandle> started = new ArrayList<>(p.descendants().toList());
        p.destroy();
        try {
            if (!p.waitFor(GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                p.waitFor(GRACE.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        // ProcessHandle checks the start time too: a reused pid is not killed.
        for (ProcessHandle h : started) {
            if (h.isAlive()) {
                h.destroyForcibly();
            }
        }
    }

    private static String read(Path f) {
        try {
            return Files.readString(f, StandardCharsets.UTF_8);
        } catch (IOException e) {
            try {
                return new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
            } catch (IOException e2) {
                return "";
            }
        }
    }

    private static void delete(Path f) {
        try {
            Files.deleteIfExists(f);
        } catch (IOException ignored) {
            // a leftover temp file under target/ is harmless
        }
    }
}
