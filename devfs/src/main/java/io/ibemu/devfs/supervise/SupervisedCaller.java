package io.ibemu.devfs.supervise;

import io.ibemu.devfs.device.Caller;
import io.ibemu.devfs.device.DeviceFile;
import io.ibemu.devfs.device.DeviceNode;
import io.ibemu.kernel.Errno;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The thread whose system call a seccomp notification stopped. It is interrupted once the
 * notification is no longer valid (the kernel drops it when a fatal signal ends the caller).
 */
final class SupervisedCaller implements Caller {

    private final Listener listener;
    private final long id;
    private final int tid;
    /** Whether a pending signal interrupts too (a call the kernel waits in interruptibly). */
    private final boolean signals;
    private DeviceNode.Credentials credentials; // read on demand, by the one thread serving the call
    private PendingSignals signalled = PendingSignals.NONE;

    SupervisedCaller(Listener listener, long id, int tid) {
        this(listener, id, tid, false);
    }

    SupervisedCaller(Listener listener, long id, int tid, boolean signals) {
        this.listener = listener;
        this.id = id;
        this.tid = tid;
        this.signals = signals;
    }

    @Override
    public int tid() {
        return tid;
    }

    @Override
    public int uid() {
        return credentials().fsuid();
    }

    @Override
    public int gid() {
        return credentials().fsgid();
    }

    private DeviceNode.Credentials credentials() {
        if (credentials == null) {
            credentials = credentials(tid);
        }
        return credentials;
    }

    @Override
    public boolean interrupted() {
        if (!listener.valid(id)) {
            return true;
        }
        if (signals) {
            signalled = PendingSignals.of(tid);
        }
        return signalled != PendingSignals.NONE;
    }

    /** What the last {@link #interrupted()} saw pending: NONE when it was the notification that ended. */
    PendingSignals signalled() {
        return signalled;
    }

    @Override
    public int installFile(DeviceFile file, int openFlags) throws Errno {
        return listener.install(id, file, openFlags);
    }

    /** fsuid, fsgid and groups from /proc/TID/status, as the kernel checks access. */
    static DeviceNode.Credentials credentials(int tid) {
        int fsuid = -1;
        int fsgid = -1;
        int[] groups = new int[0];
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc", Integer.toString(tid), "status"));
            for (String line : lines) {
                String[] f = line.split("\\s+");
                if (line.startsWith("Uid:")) {
                    fsuid = Integer.parseInt(f[4]);
                } else if (line.startsWith("Gid:")) {
                    fsgid = Integer.parseInt(f[4]);
                } else if (line.startsWith("Groups:")) {
                    groups = new int[f.length - 1];
                    for (int i = 1; i < f.length; i++) {
                        groups[i - 1] = Integer.parseInt(f[i]);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone or unreadable: no rights at all
        }
        return new DeviceNode.Credentials(fsuid, fsgid, groups);
    }

    @Override
    public String toString() {
        return "supervised tid " + tid;
    }
}
