package io.ibemu.devfs.supervise;

import io.ibemu.devfs.DeviceDirectory;
import io.ibemu.devfs.ns.MountNamespace;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Run by SupervisorTest inside {@code unshare -m}: presents a {@link CommandDevice} as
 * /dev/infiniband/sup0 and sup1 (char nodes), plain0 (a FUSE file) and open0 (a node whose
 * open only is supervised), starts a
 * {@link Supervisor}, runs args[1] (the C probe) under the stub args[0], prints the probe's
 * output and then one "ok:"/"FAIL:" line per thing it checks on the daemon's side.
 * args[2]: a scratch directory.
 */
public final class SupervisorProbe {

    private static int failures;

    public static void main(String[] args) throws Exception {
        Path stub = Path.of(args[0]);
        Path probe = Path.of(args[1]);
        Path scratch = Path.of(args[2]);
        MountNamespace.requirePrivate();
        Path work = Path.of("/run/ibemu-supervise-probe");
        MountNamespace.workDirectory(work);
        Path devDir = Files.createDirectory(work.resolve("dev"));
        CommandDevice device = new CommandDevice();
        try (DeviceDirectory directory = new DeviceDirectory("ibemu-supervise-probe")) {
            directory.addCharDevice("sup0", 231, 192, 0666, device);
            directory.addCharDevice("sup1", 231, 193, 0600, device);
            directory.add("plain0", device, 0600);
            directory.addCharDevice("open0", 231, 194, 0600, device, false);
            directory.mount(devDir);
            directory.present(Path.of("/dev/infiniband"));
            try (Supervisor supervisor = Supervisor.start(directory, scratch.resolve(Supervisor.SOCKET))) {
                Process p = new ProcessBuilder(stub.toString(), "--socket", supervisor.socket().toString(), "--",
                        probe.toString(), scratch.toString()).redirectErrorStream(true).start();
                String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                boolean exited = p.waitFor(30, TimeUnit.SECONDS);
                System.out.print(output);
                check("probe exited 0", exited && p.exitValue() == 0);
                check("every open of a node and the plain file released",
                        await(() -> device.opens.get() >= 6 && device.releases.get() == device.opens.get()));
                check("the installed event file released", await(() -> device.eventReleases.get() == 1));
                check("calls a signal ended before the daemon took them were restarted ("
                        + supervisor.restartedCalls() + ")", supervisor.restartedCalls() > 0);
                check("the listener ends with the supervised tree", await(() -> supervisor.supervisedTrees() == 0));
                check("ls shows char nodes and the plain file", listing().matches(
                        "(?s).*crw-rw-rw- .*231, 192 .*sup0.*crw------- .*231, 193 .*sup1.*")
                        && listing().matches("(?s).*-rw------- .*plain0.*"));
                Process refused = new ProcessBuilder(stub.toString(), "--socket", scratch.resolve("absent").toString(),
                        "--", "true").redirectErrorStream(true).start();
                check("no daemon: the stub exits 125", refused.waitFor(10, TimeUnit.SECONDS) && refused.exitValue() == 125);
                Process missing = new ProcessBuilder(stub.toString(), "--socket", supervisor.socket().toString(),
                        "--", "/nonexistent/cmd").redirectErrorStream(true).start();
                check("missing CMD: 127", missing.waitFor(10, TimeUnit.SECONDS) && missing.exitValue() == 127);
            }
            closeWhileATreeRuns(directory, stub, scratch);
            watchdogParksWhileNoCallIsMade(directory, stub, scratch);
        }
        System.exit(failures == 0 ? 0 : 1);
    }

    /**
     * A supervisor closed while a supervised shell waits on its stdin: the receiver blocked in
     * RECV must end (ReceiverWake), so the listener closes and the shell's next notified call,
     * an open of a node, fails with ENOSYS instead of being served by a supervisor that closed.
     */
    private static void closeWhileATreeRuns(DeviceDirectory directory, Path stub, Path scratch) throws Exception {
        Supervisor supervisor = Supervisor.start(directory, scratch.resolve("second.sock"));
        Process shell = new ProcessBuilder(stub.toString(), "--socket", supervisor.socket().toString(), "--",
                "sh", "-c", "echo ready; read go; exec 3<>/dev/infiniband/sup0; echo opened $?").redirectErrorStream(true)
                .start();
        var out = new java.io.BufferedReader(new java.io.InputStreamReader(shell.getInputStream(), StandardCharsets.UTF_8));
        check("the shell under a second supervisor started", "ready".equals(out.readLine()));
        supervisor.close();
        shell.getOutputStream().write("go\n".getBytes(StandardCharsets.UTF_8));
        shell.getOutputStream().flush();
        StringBuilder rest = new StringBuilder();
        for (String line; (line = out.readLine()) != null; ) {
            rest.append(line).append('\n');
        }
        boolean exited = shell.waitFor(10, TimeUnit.SECONDS);
        check("after close, the open of a node fails with ENOSYS (signal wake: " + ReceiverWake.AVAILABLE + "): "
                + rest.toString().strip(), exited && shell.exitValue() != 0 && rest.toString().contains("not implemented"));
        shell.destroyForcibly();
    }

    /**
     * A supervised tree that makes no call (a program busy-polling mapped rings, here a shell
     * waiting on its stdin after a supervised open) leaves the watchdog parked, not ticking;
     * its next call is served as before.
     */
    private static void watchdogParksWhileNoCallIsMade(DeviceDirectory directory, Path stub, Path scratch)
            throws Exception {
        try (Supervisor supervisor = Supervisor.start(directory, scratch.resolve("third.sock"))) {
            Process shell = new ProcessBuilder(stub.toString(), "--socket", supervisor.socket().toString(), "--",
                    "sh", "-c", "exec 3<>/dev/infiniband/sup0; echo ready; read go; exec 4<>/dev/infiniband/sup0; echo opened $?")
                    .redirectErrorStream(true).start();
            var out = new java.io.BufferedReader(new java.io.InputStreamReader(shell.getInputStream(), StandardCharsets.UTF_8));
            check("a shell under a third supervisor opened a node", "ready".equals(out.readLine()));
            check("while it makes no call, the watchdog is parked", supervisor.supervisedTrees() == 1
                    && await(SupervisorProbe::watchdogParked));
            shell.getOutputStream().write("go\n".getBytes(StandardCharsets.UTF_8));
            shell.getOutputStream().flush();
            String rest = out.readLine();
            check("its next open is served: " + rest, shell.waitFor(10, TimeUnit.SECONDS) && "opened 0".equals(rest));
            shell.destroyForcibly();
        }
    }

    /** A live supervise-watchdog thread is in LockSupport.park (not Thread.sleep, not waiting for a tree). */
    private static boolean watchdogParked() {
        for (var e : Thread.getAllStackTraces().entrySet()) {
            if (e.getKey().getName().equals("supervise-watchdog") && e.getKey().isAlive()) {
                for (StackTraceElement f : e.getValue()) {
                    if (f.getClassName().equals("java.util.concurrent.locks.LockSupport") && f.getMethodName().equals("park")) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private static String listing() {
        try {
            Process ls = new ProcessBuilder("ls", "-l", "/dev/infiniband").redirectErrorStream(true).start();
            String out = new String(ls.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            ls.waitFor();
            return out;
        } catch (Exception e) {
            return e.toString();
        }
    }

    private static boolean await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(10);
        }
        return true;
    }

    private static void check(String what, boolean ok) {
        if (!ok) {
            failures++;
        }
        System.out.println((ok ? "ok: " : "FAIL: ") + what);
    }
}
