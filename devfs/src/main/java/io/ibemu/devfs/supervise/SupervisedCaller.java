package io.ibemu.devfs.supervise;

import io.ibemu.devfs.device.Caller;
import io.ibemu.devfs.device.DeviceFile;
import io.ibemu.devfs.device.DeviceNode;
import io.ibemu.kernel.Errno;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
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
    /** Caller memory read ahead at {@link #windowAt} (the ioctl argument's pages), kept current by our writes. */
    private byte[] window = new byte[0];
    private long windowAt;

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

    /**
     * Serves later reads inside {@code bytes} (the caller's memory at {@code address}, read just
     * now) without another process_vm_readv: the caller is stopped in its system call.
     */
    void readAhead(long address, byte[] bytes) {
        windowAt = address;
        window = bytes;
    }

    @Override
    public byte[] readMemory(long address, int length) throws Errno {
        byte[] held = inWindow(address, length);
        return held != null ? held : Caller.super.readMemory(address, length);
    }

    /** The ranges outside the window in one process_vm_readv, none when the window holds them all. */
    @Override
    public byte[][] readMemory(long[] addresses, int[] lengths) {
        byte[][] out = new byte[addresses.length][];
        int[] rest = new int[addresses.length];
        int n = 0;
        for (int i = 0; i < addresses.length; i++) {
            out[i] = inWindow(addresses[i], lengths[i]);
            if (out[i] == null) {
                rest[n++] = i;
            }
        }
        if (n == 0) {
            return out;
        }
        long[] at = new long[n];
        int[] len = new int[n];
        for (int k = 0; k < n; k++) {
            at[k] = addresses[rest[k]];
            len[k] = lengths[rest[k]];
        }
        byte[][] got = Caller.super.readMemory(at, len);
        if (got == null) {
            return null;
        }
        for (int k = 0; k < n; k++) {
            out[rest[k]] = got[k];
        }
        return out;
    }

    private byte[] inWindow(long address, int length) {
        long from = address - windowAt;
        if (from >= 0 && length >= 0 && from <= window.length - (long) length) {
            return Arrays.copyOfRange(window, (int) from, (int) from + length);
        }
        return null;
    }

    @Override
    public void writeMemory(long address, byte[] data) throws Errno {
        Caller.super.writeMemory(address, data);
        reflect(address, data);
    }

    @Override
    public int writeMemory(long[] addresses, byte[][] data) {
        int whole = Caller.super.writeMemory(addresses, data);
        for (int i = 0; i < whole; i++) {
            reflect(addresses[i], data[i]);
        }
        return whole;
    }

    /** What we wrote into the caller's memory, into the window that read it before. */
    private void reflect(long address, byte[] data) {
        long from = Math.max(address, windowAt);
        long to = Math.min(address + data.length, windowAt + window.length);
        if (from < to) {
            System.arraycopy(data, (int) (from - address), window, (int) (from - windowAt), (int) (to - from));
        }
    }

    @Override
    public int installFile(DeviceFile file, int openFlags) throws Errno {
        return listener.install(id, file, openFlags);
    }

    /** The descriptor the call was made on, or -1 (fileFlags then answers the open's flags). */
    private int fd = -1;

    /** Names the descriptor of the call (a write), so that {@link #fileFlags} can read its flags now. */
    SupervisedCaller on(int descriptor) {
        fd = descriptor;
        return this;
    }

    /** f_flags from /proc/TID/fdinfo/FD ("flags:" in octal), read only when asked. */
    @Override
    public int fileFlags(int openFlags) {
        if (fd < 0) {
            return openFlags;
        }
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Integer.toString(tid), "fdinfo", Integer.toString(fd)))) {
                if (line.startsWith("flags:")) {
                    return Integer.parseInt(line.substring(6).trim(), 8);
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone: the open's flags are all there is
        }
        return openFlags;
    }

    @Override
    public DeviceFile fileOf(int fd) {
        Object f = listener.rangeFile(tid, fd);
        return f instanceof NodeFile n ? n.file : f instanceof SocketFile s ? s.file : null;
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
